@testable import EntitlementStorage
import Entitlements
import Testing

/// Records written in format version 2 (every record of a store last written before version 3)
/// read back as the facts they were written from, and the next write turns them into the
/// current version. The bytes are real version-2 output: users u0 and u1 of the 1M x 3 bench
/// file seeded by 0c33037's build, with the rows its tables held for them.
struct UserFactsRecordVersion2Tests {
    static let u0 = "020981DAC4091670726F2E6D6F6E74686C790E6772702E70726F1433303030303030302D301250555243484153454481"
        + "8ECE1C1433303030303030302D3181B489131433303030303030302D320301000001B6C38FA99F68008090A9FA1303040500"
        + "0000010500018090A9FA13008090A9FA13030705000000010700018090A9FA13008090A9FA1303090500000001010002B6D3"
        + "94F0C768"
    static let u1 = "020983DAC4091670726F2E6D6F6E74686C790E6772702E70726F1433303030303030312D301250555243484153454483"
        + "8ECE1C1433303030303030312D3183B489131433303030303030312D320301000001B6D3BBD0FA670080A0F6A71303040500"
        + "00000105000180A0F6A7130080A0F6A7130307050000000107000180A0F6A7130080A0F6A71303090500000001080002B6D3"
        + "94F0C76802"

    /// The user's facts as the bench file's tables hold them: three monthly transactions of one
    /// chain (ids `1000000<i>`, `3000000<i>`, `2000000<i>`) and its renewal info.
    static func facts(user: Int, purchases: [Int64], period: Int64, active: Bool) -> UserFacts {
        let chain = "1000000\(user)"
        let ids = [chain, "3000000\(user)", "2000000\(user)"]
        let transactions = zip(ids, purchases).enumerated().map { renewal, pair in
            Transaction(
                transactionID: pair.0, originalTransactionID: chain, productID: "pro.monthly",
                purchaseDateMs: pair.1, originalPurchaseDateMs: purchases[0], expiresDateMs: pair.1 + period,
                subscriptionGroupIdentifier: "grp.pro", webOrderLineItemID: "3000000\(user)-\(renewal)",
                inAppOwnershipType: "PURCHASED")
        }
        let info = RenewalInfo(originalTransactionID: chain, autoRenewStatus: active, autoRenewProductID: "pro.monthly",
                               expirationIntent: active ? nil : 1, signedDateMs: 1_796_353_463_515)
        return UserFacts(transactions: transactions, renewalInfos: [chain: info])
    }

    static let cases: [(String, UserFacts)] = [
        (u0, facts(user: 0, purchases: [1_790_910_263_515, 1_793_588_663_515, 1_796_267_063_515],
                   period: 2_678_400_000, active: true)),
        (u1, facts(user: 1, purchases: [1_785_985_463_515, 1_788_577_463_515, 1_791_169_463_515],
                   period: 2_592_000_000, active: false)),
    ]

    @Test(arguments: cases)
    func aVersion2RecordFromARealFileDecodesToItsTables(_ hex: String, _ facts: UserFacts) throws {
        // The next write stores the current version: the same facts in fewer bytes.
        let rewritten = try UserFactsRecordVersion1Tests.expectDecodesAndRewrites(hex, to: facts)
        #expect(rewritten.count < hex.count / 2)
    }
}
