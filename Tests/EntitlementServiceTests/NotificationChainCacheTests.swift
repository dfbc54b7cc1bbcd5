@testable import EntitlementService
import Entitlements
import JWS
import Testing

/// V2 ingest costs three ES256 checks a notification only while the x5c chain and header that
/// Apple repeats for every token of a leaf stay cached: a miss adds P-384 chain signatures and a
/// ~5 KB header decode to each one, a slowdown no functional test would see.
struct NotificationChainCacheTests {
    @Test func notificationsFromOneLeafCheckItsHeaderAndChainOnce() async throws {
        let harness = try IngestorHarness()
        let chains = ["200", "300", "400"]
        for chain in chains {
            _ = try await harness.receipt("owner-\(chain)", [AppleNotifications.subscription(chain, chain: chain)])
        }
        for (index, chain) in chains.enumerated() {
            let renewed = AppleNotifications.subscription(chain + "1", chain: chain)
            let renewal = RenewalInfo(originalTransactionID: chain, autoRenewStatus: true,
                                      signedDateMs: renewed.purchaseDateMs)
            let body = try harness.notifications.v2("uuid-\(chain)", "DID_RENEW", transaction: renewed,
                                                    renewal: renewal)
            #expect(await harness.ingest(body).disposition == .accepted(owners: 1, newTransactions: 1))
            let checks = try #require(harness.verifier.fullChecks)
            #expect(checks.headers == 1, "headers decoded after \(index + 1) notifications of three tokens")
            #expect(checks.chains == 1, "chains verified after \(index + 1) notifications of three tokens")
        }
        #expect(harness.verifier.cachedEntries.chains == 1 && harness.verifier.cachedEntries.headers == 1)
    }
}
