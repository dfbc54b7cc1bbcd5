import AppStore
import EntitlementAPI
import EntitlementMemoryStore
import EntitlementPorts
@testable import EntitlementService
import Entitlements
import JWS
import RPCCore
import Testing

/// SubmitReceipt end to end below the wire: Apple scripted, facts in memory. Idempotency by
/// receipt, ownership under both policies, chains bound after their notifications, the
/// verification cache, and StoreKit 2 signed transactions verified locally.
struct ReceiptSubmissionTests {
    private let receipt = "cmVjZWlwdA=="

    private struct Service {
        let apple: ScriptedApple
        let repository: InMemoryEntitlementStore
        let submission: ReceiptSubmission
        let notifications: AppleNotifications

        init(_ answers: [ScriptedApple.Answer], policy: TransferPolicy = .transfer,
             verifyCacheTTLMs: Int64? = nil) throws {
            apple = ScriptedApple(answers)
            repository = InMemoryEntitlementStore(transferPolicy: policy, clock: Harness.clock)
            notifications = try AppleNotifications()
            let jws = JWSVerifier(trustedRoots: try TrustedRoots(pem: notifications.authority.rootPEM))
            submission = ReceiptSubmission(
                verifier: Harness.verifier(apple),
                signedTransactions: SignedTransactionVerifier(verifier: jws, bundleID: AppleNotifications.bundleID),
                repository: repository, catalog: .empty, verifyCacheTTLMs: verifyCacheTTLMs, now: Harness.clock)
        }

        func submit(_ user: String, receipt: String = "", signed: String = "") async throws
            -> EntitlementV1.SubmitReceiptResponse {
            var request = EntitlementV1.SubmitReceiptRequest()
            request.userID = user
            request.receiptData = receipt
            request.signedTransaction = signed
            return try await submission.submit(request)
        }
    }

    @Test func aReceiptIsStoredOnceHoweverOftenItIsSubmitted() async throws {
        let service = try Service([.verifyReceipt(Harness.validReceipt()), .verifyReceipt(Harness.validReceipt())])
        let first = try await service.submit("alice", receipt: receipt)
        #expect(first.newTransactions == 1)
        #expect(first.entitlements.map(\.active) == [true])
        let again = try await service.submit("alice", receipt: receipt)
        #expect(again.newTransactions == 0)
        #expect(service.apple.calls.count == 2, "no verification cache configured: Apple is asked each time")
        #expect(try service.repository.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
            .events.map(\.eventID) == ["purchase:1000"])
    }

    @Test func aRecentlyVerifiedReceiptIsAnsweredWithoutApple() async throws {
        let service = try Service([.verifyReceipt(Harness.validReceipt())], verifyCacheTTLMs: 60_000)
        _ = try await service.submit("alice", receipt: receipt)
        let cached = try await service.submit("alice", receipt: receipt)
        #expect(service.apple.calls.count == 1)
        #expect(cached.entitlements.map(\.active) == [true])
    }

    @Test func anotherUsersReceiptMovesTheChainUnderTransfer() async throws {
        let service = try Service([.verifyReceipt(Harness.validReceipt()), .verifyReceipt(Harness.validReceipt())])
        _ = try await service.submit("alice", receipt: receipt)
        let bob = try await service.submit("bob", receipt: receipt)
        #expect(bob.entitlements.map(\.active) == [true])
        #expect(try service.repository.facts(userID: "alice") == UserFacts())
        let aliceHistory = try service.repository.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
        #expect(aliceHistory.events.first?.kind == .ownershipTransfer)
    }

    @Test func anotherUsersReceiptIsRefusedUnderReject() async throws {
        let service = try Service([.verifyReceipt(Harness.validReceipt()), .verifyReceipt(Harness.validReceipt())],
                                  policy: .reject)
        _ = try await service.submit("alice", receipt: receipt)
        let error = await #expect(throws: RPCError.self) { _ = try await service.submit("bob", receipt: receipt) }
        #expect(error?.code == .permissionDenied)
        #expect(try service.repository.facts(userID: "bob") == UserFacts())
        #expect(try service.repository.facts(userID: "alice").transactions.count == 1)
    }

    @Test func aReceiptBindsAChainItsNotificationsArrivedFor() async throws {
        let service = try Service([.verifyReceipt(Harness.validReceipt())])
        let chainFirst = Harness.validReceipt().transactions[0]
        _ = try await service.repository.apply(NotificationWrite(
            source: .notificationV2, sourceID: "v2:early", signedDateMs: Harness.now, transactions: [chainFirst],
            events: [HistoryEvent(eventID: "v2:early", kind: .autoRenewDisabled, occurredAtMs: Harness.now,
                                  productID: chainFirst.productID, transactionID: chainFirst.transactionID,
                                  originalTransactionID: chainFirst.originalTransactionID, environment: .production,
                                  source: .notificationV2)]))
        let response = try await service.submit("carol", receipt: receipt)
        #expect(response.newTransactions == 0, "the notification stored it already")
        #expect(try service.repository.history(userID: "carol", productID: nil, pageSize: 0, pageToken: nil)
            .events.map(\.eventID) == ["v2:early", "purchase:1000"])
    }

    @Test func aSignedTransactionIsVerifiedLocallyWithoutApple() async throws {
        let service = try Service([])
        let transaction = AppleNotifications.subscription("500", chain: "500")
        let signed = try service.notifications.authority.signer.sign(
            JWSTransactionPayload(transaction: transaction, bundleID: AppleNotifications.bundleID,
                                  signedDateMs: Harness.now).jsonBody())
        let response = try await service.submit("dave", signed: signed)
        #expect(response.newTransactions == 1)
        #expect(service.apple.calls.isEmpty)
        #expect(try service.repository.facts(userID: "dave").transactions.map(\.transactionID) == ["500"])

        let forged = try AppleNotifications().authority.signer.sign(
            JWSTransactionPayload(transaction: transaction, bundleID: AppleNotifications.bundleID,
                                  signedDateMs: Harness.now).jsonBody())
        await #expect(throws: RPCError.self) { _ = try await service.submit("eve", signed: forged) }
        #expect(try service.repository.facts(userID: "eve") == UserFacts())
    }

    @Test func aSignedTransactionsPriceIsRevenueOnItsPurchaseDay() async throws {
        let service = try Service([])
        let transaction = AppleNotifications.subscription("600", chain: "600")
        var payload = JWSTransactionPayload(transaction: transaction, bundleID: AppleNotifications.bundleID,
                                            signedDateMs: Harness.now)
        (payload.price, payload.currency) = (4_990, "GBP")
        _ = try await service.submit("fay", signed: try service.notifications.authority.signer.sign(payload.jsonBody()))
        let day = UTCDay(containing: transaction.purchaseDateMs)
        let figures = try service.repository.dailyFigures(days: day...day, environment: transaction.environment)
        #expect(figures.map(\.revenue) == [["GBP": 4_990]])
    }

    @Test func requestsWithoutExactlyOneReceiptAreRefusedBeforeApple() async throws {
        let service = try Service([])
        await #expect(throws: RPCError.self) { _ = try await service.submit("", receipt: receipt) }
        await #expect(throws: RPCError.self) { _ = try await service.submit("alice") }
        await #expect(throws: RPCError.self) {
            _ = try await service.submit("alice", receipt: receipt, signed: "x.y.z")
        }
        await #expect(throws: RPCError.self) { _ = try await service.submit("alice", receipt: "not base64!") }
        #expect(service.apple.calls.isEmpty)
    }
}
