import EntitlementAPI
import EntitlementMemoryStore
import EntitlementPorts
@testable import EntitlementService
import Entitlements
import RPCCore
import Testing

/// CheckEntitlement and ListHistory read the repository inline: what they answer from the
/// facts, and how the repository's refusals reach the caller.
struct EntitlementRPCsTests {
    private func rpcs(_ repository: any EntitlementRepository) -> EntitlementRPCs {
        let receipts = ReceiptSubmission(
            verifier: Harness.verifier(ScriptedApple([])),
            signedTransactions: SignedTransactionVerifier(verifier: .init(), bundleID: nil),
            repository: repository, catalog: .empty, verifyCacheTTLMs: nil, now: Harness.clock)
        return EntitlementRPCs(repository: repository, catalog: .empty, receipts: receipts, now: Harness.clock)
    }

    private func check(_ rpcs: EntitlementRPCs, _ user: String, at atMs: Int64 = 0) throws
        -> EntitlementV1.CheckEntitlementResponse {
        var request = EntitlementV1.CheckEntitlementRequest()
        request.userID = user
        request.atMs = atMs
        return try rpcs.checkEntitlement(request)
    }

    private func history(_ rpcs: EntitlementRPCs, _ user: String, pageSize: Int32, token: String = "") throws
        -> EntitlementV1.ListHistoryResponse {
        var request = EntitlementV1.ListHistoryRequest()
        request.userID = user
        request.pageSize = pageSize
        request.pageToken = token
        return try rpcs.listHistory(request)
    }

    @Test func checkEntitlementAnswersFromTheFactsAtTheAskedInstant() async throws {
        let repository = InMemoryEntitlementStore(clock: Harness.clock)
        let subscription = AppleNotifications.subscription("100", chain: "100")
        _ = try await repository.write(FactsWrite(userID: "alice", transactions: [subscription], source: .receipt))
        let rpcs = rpcs(repository)
        #expect(try check(rpcs, "alice").active)
        #expect(try check(rpcs, "alice").evaluatedAtMs == Harness.now)
        let beforePurchase = try check(rpcs, "alice", at: subscription.purchaseDateMs - 1)
        #expect(!beforePurchase.active)
        #expect(try !check(rpcs, "bob").active, "an unknown user owns nothing")
        let error = #expect(throws: RPCError.self) { _ = try check(rpcs, "") }
        #expect(error?.code == .invalidArgument)
    }

    @Test func listHistoryPagesWithTheRepositorysTokens() async throws {
        let repository = InMemoryEntitlementStore(clock: Harness.clock)
        let chain = (0..<3).map { AppleNotifications.subscription("\(100 + $0)", chain: "100") }
        _ = try await repository.write(FactsWrite(userID: "alice", transactions: chain, source: .receipt))
        let rpcs = rpcs(repository)
        let first = try history(rpcs, "alice", pageSize: 2)
        #expect(first.events.count == 2)
        #expect(!first.nextPageToken.isEmpty)
        let second = try history(rpcs, "alice", pageSize: 2, token: first.nextPageToken)
        #expect(second.events.count == 1)
        #expect(second.nextPageToken.isEmpty)
        #expect(Set((first.events + second.events).map(\.eventID)) == ["purchase:100", "renewal:101", "renewal:102"])
        let error = #expect(throws: RPCError.self) { _ = try history(rpcs, "alice", pageSize: 2, token: "garbage") }
        #expect(error?.code == .invalidArgument, "a token this service never issued: start again")
    }

    @Test func aFailingRepositoryIsUnavailableNotAnAnswer() throws {
        let rpcs = rpcs(UnavailableRepository())
        let error = #expect(throws: RPCError.self) { _ = try check(rpcs, "alice") }
        #expect(error?.code == .unavailable, "retryable, with no storage detail for the caller")
        #expect(error?.message.contains("disk") == false)
    }
}

/// A repository whose storage is gone (disk full, shutting down): every call fails retryably.
struct UnavailableRepository: EntitlementRepository {
    var code: StoreError.Code = .storageFailure
    private var failure: StoreError {
        StoreError(code: code, message: "disk full at /var/lib/x; retry later")
    }
    func write(_ write: FactsWrite) async throws -> WriteOutcome { throw failure }
    func apply(_ notification: NotificationWrite) async throws -> NotificationOutcome { throw failure }
    func facts(userID: String) throws -> UserFacts { throw failure }
    func history(userID: String, productID: String?, pageSize: Int, pageToken: String?) throws -> HistoryPage {
        throw failure
    }
}
