@testable import EntitlementStorage
import Entitlements
import Testing

/// Records written in format version 1 (every record of a store last written before version 2)
/// read back as the facts they were written from. The bytes are real version-1 output: the
/// samples encoded by the version-1 encoder as landed (68584a3), and records of the 1M x 3 bench
/// file that build seeded, with the facts its tables held.
struct UserFactsRecordVersion1Tests {
    static let landedSamples = [
        "01000000",
        "0102013109636f696e732e3130300100000001090900000000000000",
        "0108103230303030303031323334353637383910323030303030303132333435363730300b70726f2e6d6f6e74686c79076772702e"
            + "70726f0d323030303030303035343332310d46414d494c595f5348415245442435653563346561302d376137622d346235652d"
            + "396333652d3666366236653664366336620a70726f2e796561726c79011f00010280a0abfef9628090ccbdaf6280c0a1a68d63"
            + "80c881b88163040506070102010f01088098aeab90630480f0d7f18863",
        "010b103230303030303031323334353637383910323030303030303132333435363730300b70726f2e6d6f6e74686c79076772702e"
            + "70726f0d323030303030303035343332310d46414d494c595f5348415245442435653563346561302d376137622d346235652d"
            + "396333652d366636623665366436633662013109636f696e732e31303010323030303030303132333435363739300a70726f2e"
            + "796561726c79031f00010280a0abfef9628090ccbdaf6280c0a1a68d6380c881b88163040506070102000707080909000000"
            + "00000001090102feffffffffffffffff01feffffffffffffffff01ffffffffffffffffff0100000000000402000700000f01"
            + "0b8098aeab90630480f0d7f18863",
        "01010131000100000000",
    ]

    @Test(arguments: zip(landedSamples, UserFactsRecordTests.samples))
    func landedVersion1BytesDecodeToTheirFacts(_ hex: String, _ facts: UserFacts) throws {
        _ = try Self.expectDecodesAndRewrites(hex, to: facts)
    }

    /// The record `hex` decodes to `facts`, every string byte for byte, and re-encoding writes
    /// the current version, which decodes to the same facts; returns the rewritten bytes.
    static func expectDecodesAndRewrites(_ hex: String, to facts: UserFacts) throws -> [UInt8] {
        let decoded = try bytes(hex).withUnsafeBytes { try UserFactsRecord.decode($0) }
        #expect(decoded == facts)
        #expect(decoded.map(UserFactsRecordTests.stringBytes) == UserFactsRecordTests.stringBytes(facts))
        let rewritten = UserFactsRecord.encode(try #require(decoded))
        #expect(rewritten.first == UserFactsRecord.version)
        #expect(try rewritten.withUnsafeBytes { try UserFactsRecord.decode($0) } == facts)
        return rewritten
    }

    /// User u999999 of `entitlementd-bench seed --users 1000000 --transactions-per-user 3` run by
    /// 68584a3's build: its record, and its rows in transactions / renewal_infos.
    @Test func aRecordFromARealVersion1FileDecodesToItsTables() throws {
        let record = "01090D313030303030303939393939390B70726F2E6D6F6E74686C79076772702E70726F0F33303030303030393939"
            + "3939392D30095055524348415345440D333030303030303939393939390F333030303030303939393939392D310D"
            + "32303030303030"
            + "3939393939390F333030303030303939393939392D32030100000188ABDBABF96788ABDBABF96788CBD1D38C68030405000000"
            + "0105000188CBD1D38C6888ABDBABF96788EBC7FB9F680307050000000107000188EBC7FB9F6888ABDBABF967888BBEA3B36803"
            + "0905000000010800020288ABB4CBC668"
        func row(_ id: String, _ purchase: Int64, _ expires: Int64, _ renewal: Int) -> Transaction {
            Transaction(transactionID: id, originalTransactionID: "1000000999999", productID: "pro.monthly",
                        purchaseDateMs: purchase, originalPurchaseDateMs: 1_785_812_708_036, expiresDateMs: expires,
                        subscriptionGroupIdentifier: "grp.pro", webOrderLineItemID: "3000000999999-\(renewal)",
                        inAppOwnershipType: "PURCHASED", environment: .production)
        }
        let tables = UserFacts(
            transactions: [row("1000000999999", 1_785_812_708_036, 1_788_404_708_036, 0),
                           row("3000000999999", 1_788_404_708_036, 1_790_996_708_036, 1),
                           row("2000000999999", 1_790_996_708_036, 1_793_588_708_036, 2)],
            renewalInfos: ["1000000999999": RenewalInfo(
                originalTransactionID: "1000000999999", autoRenewStatus: false, autoRenewProductID: "pro.monthly",
                expirationIntent: 1, signedDateMs: 1_796_180_708_036)])
        let decoded = try Self.bytes(record).withUnsafeBytes { try UserFactsRecord.decode($0) }
        #expect(decoded == tables)
        let rewritten = UserFactsRecord.encode(tables)
        #expect(try rewritten.withUnsafeBytes { try UserFactsRecord.decode($0) } == tables)
        #expect(rewritten.count < Self.bytes(record).count - 40, "\(rewritten.count) vs \(Self.bytes(record).count)")
    }

    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)!
        }
    }
}
