import EntitlementMemoryStore
import EntitlementPorts
@testable import EntitlementService
import Entitlements
import JWS
import Testing

/// The ingestor's decisions (accepted / orphaned / duplicate / test, rejected for a reason,
/// retry later) and what each leaves in the repository, for V1 and V2.
struct NotificationIngestorTests {
    private let first = AppleNotifications.subscription("100", chain: "100")
    private let renewal = AppleNotifications.subscription("101", chain: "100")

    @Test func aV2NotificationForAnOwnedChainIsAppliedForItsOwner() async throws {
        let harness = try IngestorHarness()
        _ = try await harness.receipt("alice", [first])
        let body = try harness.notifications.v2("uuid-renew", "DID_RENEW", transaction: renewal)
        let answer = await harness.ingest(body)
        #expect(answer.disposition == .accepted(owners: 1, newTransactions: 1))
        #expect(answer.notificationID == "v2:uuid-renew")
        #expect(harness.lastLabels == .init(version: "v2", type: "DID_RENEW", outcome: "applied"))
        let facts = try harness.repository.facts(userID: "alice")
        #expect(Set(facts.transactions.map(\.transactionID)) == ["100", "101"])
        let renewed = try harness.history("alice").first { $0.eventID == "renewal:101" }
        #expect(renewed?.appleNotificationType == "DID_RENEW")
        #expect(renewed?.source == .notificationV2)
    }

    @Test func aV2NotificationsPriceIsRevenueOnTheDashboardOnce() async throws {
        let harness = try IngestorHarness()
        _ = try await harness.receipt("alice", [first])
        let priced = try harness.notifications.v2("uuid-paid", "DID_RENEW", transaction: renewal,
                                                  price: (9_990, "EUR"))
        #expect(await harness.ingest(priced).disposition == .accepted(owners: 1, newTransactions: 1))
        _ = await harness.ingest(priced)
        let day = UTCDay(containing: renewal.purchaseDateMs)
        let figures = try #require(harness.repository as? any DailyFiguresReading)
            .dailyFigures(days: day...day, environment: .sandbox)
        #expect(figures.map(\.revenue) == [["EUR": 9_990]])
    }

    @Test func aV2NotificationNobodyOwnsIsKeptUntilAReceiptBindsIt() async throws {
        let harness = try IngestorHarness()
        let body = try harness.notifications.v2("uuid-off", "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED",
                                                transaction: first)
        let answer = await harness.ingest(body)
        #expect(answer.disposition == .orphaned, "kept (answered 200), so Apple does not redeliver for days")
        #expect(harness.lastLabels?.outcome == "orphan")

        let bound = try await harness.receipt("bob", [first])
        #expect(bound.newEvents == 2, "the purchase and the waiting auto-renew event join bob's history")
        #expect(try harness.history("bob").map(\.kind) == [.autoRenewDisabled, .purchase])
    }

    @Test func aRedeliveredNotificationIsADuplicateAndChangesNothing() async throws {
        let harness = try IngestorHarness()
        _ = try await harness.receipt("alice", [first])
        let body = try harness.notifications.v2("uuid-once", "DID_RENEW", transaction: renewal)
        _ = await harness.ingest(body)
        let before = try harness.history("alice")
        let again = await harness.ingest(body)
        #expect(again.disposition == .duplicate, "acknowledged (200): Apple must stop retrying")
        #expect(harness.lastLabels?.outcome == "duplicate")
        #expect(try harness.history("alice") == before)
    }

    @Test func aRefundAndItsReversalInEitherOrderLeaveTheSubscriptionActive() async throws {
        for reversalFirst in [false, true] {
            let harness = try IngestorHarness()
            _ = try await harness.receipt("alice", [first])
            let refunded = AppleNotifications.subscription("100", chain: "100", cancelledAt: Harness.now - 3_600_000)
            let refund = try harness.notifications.v2("uuid-refund", "REFUND", transaction: refunded,
                                                      signedAt: Harness.now - 3_000_000)
            let reversal = try harness.notifications.v2("uuid-reversed", "REFUND_REVERSED", transaction: first,
                                                        signedAt: Harness.now - 1_000_000)
            for body in reversalFirst ? [reversal, refund] : [refund, reversal] {
                #expect(await harness.status(body) == 200)
            }
            let facts = try harness.repository.facts(userID: "alice")
            let state = EntitlementRules.entitlements(for: facts, at: .now(Harness.now), catalog: .empty).first?.state
            #expect(state == .active, "reversal first: \(reversalFirst)")
        }
    }

    @Test func aTestNotificationIsAcknowledgedAndStoresNothing() async throws {
        let harness = try IngestorHarness()
        let answer = await harness.ingest(try harness.notifications.v2("uuid-test", "TEST"))
        #expect(answer.disposition == .test)
        #expect(harness.lastLabels == .init(version: "v2", type: "TEST", outcome: "test"))
    }

    @Test func aV2SignedByAnotherAuthorityIsRefusedAndStoresNothing() async throws {
        let harness = try IngestorHarness()
        _ = try await harness.receipt("alice", [first])
        let stranger = try AppleNotifications()
        let answer = await harness.ingest(try stranger.v2("uuid-forged", "DID_RENEW", transaction: renewal))
        #expect(answer.disposition.rejection?.reason == .unauthenticated)
        #expect(harness.lastLabels == .init(version: "v2", type: "unverified", outcome: "rejected"),
                "strangers cannot grow metric labels")
        #expect(try harness.repository.facts(userID: "alice").transactions.map(\.transactionID) == ["100"])
    }

    @Test func malformedBodiesAreRefusedAsNeverValid() async throws {
        let harness = try IngestorHarness()
        #expect(await harness.ingest(Array("not json".utf8)).disposition.rejection?.reason == .malformed)
        #expect(harness.lastLabels == .init(version: "v1", type: "unverified", outcome: "rejected"))
        let notAJWS = AppleNotifications.envelope("not.a.jws")
        #expect(await harness.ingest(notAJWS).disposition.rejection?.reason == .malformed)
        #expect(harness.lastLabels?.version == "v2")
        #expect(await harness.ingest(AppleNotifications.envelope("abc")).disposition.rejection?.reason == .malformed)
        #expect(await harness.ingest(AppleNotifications.envelope("")).disposition.rejection?.reason == .malformed)
        #expect(harness.lastLabels?.version == "v2", "an empty signedPayload is a V2 envelope that does not verify")
        let tooLarge = [UInt8](repeating: UInt8(ascii: " "), count: (1 << 20) + 1)
        #expect(await harness.ingest(tooLarge).disposition.rejection?.reason == .tooLarge)
        #expect(harness.lastLabels?.version == "unknown")
    }

    @Test func anotherAppsNotificationIsForbidden() async throws {
        let harness = try IngestorHarness()
        let v2 = try harness.notifications.v2("uuid-other", "DID_RENEW", transaction: renewal,
                                              bundleID: "com.other.app")
        #expect(await harness.ingest(v2).disposition.rejection?.reason == .otherBundle)
        let v1 = AppleNotifications.v1("DID_RENEW", transactions: [first, renewal], bundleID: "com.other.app")
        #expect(await harness.ingest(v1).disposition.rejection?.reason == .otherBundle)
    }

    @Test func aV1NotificationNeedsTheSharedSecret() async throws {
        let harness = try IngestorHarness()
        _ = try await harness.receipt("alice", [first])
        let wrong = AppleNotifications.v1("DID_RENEW", transactions: [first, renewal], password: "guess")
        #expect(await harness.ingest(wrong).disposition.rejection?.reason == .unauthenticated)
        #expect(harness.lastLabels == .init(version: "v1", type: "unverified", outcome: "rejected"))
        #expect(try harness.repository.facts(userID: "alice").transactions.count == 1)

        let body = AppleNotifications.v1("DID_RENEW", transactions: [first, renewal])
        let answer = await harness.ingest(body)
        #expect(answer.disposition == .accepted(owners: 1, newTransactions: 1))
        #expect(answer.notificationID.hasPrefix("v1:"), "V1 is idempotent by the hash of its body")
        #expect(harness.lastLabels == .init(version: "v1", type: "DID_RENEW", outcome: "applied"))
        #expect(try harness.repository.facts(userID: "alice").transactions.count == 2)
        #expect(await harness.ingest(body).disposition == .duplicate)

        let unconfigured = try IngestorHarness(sharedSecret: nil)
        #expect(await unconfigured.status(body) == 401, "without a secret V1 cannot be authenticated")
        let empty = try IngestorHarness(sharedSecret: "")
        let noPassword = AppleNotifications.v1("DID_RENEW", transactions: [first], password: "")
        #expect(await empty.status(noPassword) == 401, "an empty secret is no secret")
    }

    @Test func aStorageFailureAsksAppleToRetry() async throws {
        let harness = try IngestorHarness(repository: UnavailableRepository())
        let body = try harness.notifications.v2("uuid-later", "DID_RENEW", transaction: renewal)
        let answer = await harness.ingest(body)
        #expect(answer.disposition == .retryLater, "answered 503: Apple redelivers later")
        #expect(NotificationWebhook.status(of: answer.disposition) == 503)
        #expect(
            !answer.disposition.summary.contains("disk full"), "the cause goes to the log only, not into the answer")
        #expect(harness.lastLabels?.outcome == "failed")
    }

    @Test func aStoreFailureOfAnUnknownKindIsAFailureAppleRetries() async throws {
        let harness = try IngestorHarness(repository: UnavailableRepository(code: .ownershipConflict))
        let body = try harness.notifications.v2("uuid-odd", "DID_RENEW", transaction: renewal)
        let answer = await harness.ingest(body)
        #expect(answer.disposition == .failed)
        #expect(harness.lastLabels == .init(version: "v2", type: "DID_RENEW", outcome: "failed"))
    }
}

extension NotificationDisposition {
    /// The rejection, when the notification was refused for good.
    var rejection: NotificationRejection? {
        if case .rejected(let rejection) = self { return rejection }
        return nil
    }
}
