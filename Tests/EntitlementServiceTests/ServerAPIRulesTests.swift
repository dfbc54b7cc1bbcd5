@testable import EntitlementService
import Entitlements
import Testing

/// The pure decisions of the Server API path: which chains a refresh asks about (and in which
/// environment, with statuses or not), and which transaction ids are worth a call to Apple.
struct ServerAPIRulesTests {
    static func transaction(_ id: String, chain: String, expires: Int64?, environment: Environment = .production)
        -> Transaction {
        Transaction(transactionID: id, originalTransactionID: chain, productID: "p", purchaseDateMs: 1,
                    expiresDateMs: expires, environment: environment)
    }

    @Test func aRefreshAsksOncePerChainInItsEnvironmentInAStableOrder() {
        let facts = UserFacts(transactions: [
            Self.transaction("31", chain: "30", expires: nil, environment: .sandbox),
            Self.transaction("11", chain: "10", expires: 5), Self.transaction("10", chain: "10", expires: 2),
            Self.transaction("20", chain: "20", expires: nil),
        ])
        #expect(EntitlementRefresh.chains(of: facts) == [
            .init(originalTransactionID: "10", environment: .production, isSubscription: true),
            .init(originalTransactionID: "20", environment: .production, isSubscription: false),
            .init(originalTransactionID: "30", environment: .sandbox, isSubscription: false),
        ])
        #expect(EntitlementRefresh.chains(of: UserFacts()) == [])
    }

    @Test(arguments: [("2000000123456789", true), ("1", true), ("", false), ("12ab", false), ("-1", false),
                      ("1 2", false), (String(repeating: "9", count: 32), true),
                      (String(repeating: "9", count: 33), false), ("١٢٣", false)])
    func onlyDecimalTransactionIDsAreLookedUp(_ text: String, valid: Bool) {
        #expect(ReceiptSubmission.isTransactionID(text) == valid)
    }
}
