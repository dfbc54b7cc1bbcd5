import Entitlements
import Testing

struct AppAccountTokenTests {
    @Test(arguments: [
        ("7E3FB20B-4CDB-47CC-936D-99D65F608138", "7e3fb20b-4cdb-47cc-936d-99d65f608138"),
        ("7e3fb20b-4cdb-47cc-936d-99d65f608138", "7e3fb20b-4cdb-47cc-936d-99d65f608138"),
        ("7e3fb20b4cdb47cc936d99d65f608138", nil), ("7e3fb20b-4cdb-47cc-936d-99d65f60813", nil),
        ("7e3fb20b-4cdb-47cc-936d-99d65f60813g", nil), ("{7e3fb20b-4cdb-47cc-936d-99d65f608138}", nil),
        ("", nil), ("not-a-uuid", nil), ("7e3fb20b_4cdb-47cc-936d-99d65f608138", nil),
    ] as [(String, String?)])
    func canonicalFormIsLowercaseHyphenated(_ text: String, canonical: String?) {
        #expect(AppAccountToken.canonical(text) == canonical)
    }

    @Test func randomTokensAreVersion4UUIDsAndDistinct() {
        let tokens = (0..<1_000).map { _ in AppAccountToken.random() }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens {
            #expect(AppAccountToken.canonical(token) == token)
            let characters = Array(token)
            #expect(characters[14] == "4", "version 4")
            #expect("89ab".contains(characters[19]), "RFC 4122 variant")
        }
    }

    @Test func carriedTokensAreCanonicalEachOnceAndSkipMalformedOnes() {
        func bought(_ token: String?) -> Transaction {
            Transaction(transactionID: "1", originalTransactionID: "1", productID: "p", purchaseDateMs: 0,
                        appAccountToken: token, environment: .production)
        }
        let upper = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
        #expect(AppAccountToken.carried(by: [bought(upper), bought(upper.lowercased()), bought("junk"), bought(nil)])
            == [upper.lowercased()])
    }

    @Test func theOtherAccountIsReadBackFromAnOwnershipEvent() {
        let moved = HistoryDerivation.ownershipTransfer(
            originalTransactionID: "1000", productID: "p", toUserID: "user:with:colons", occurredAtMs: 5,
            environment: .production, source: .receipt)
        #expect(moved.counterpartUserID == "user:with:colons")
        let refused = HistoryDerivation.claimRefused(
            originalTransactionID: "1000", productID: "p", claimantUserID: "mallory", occurredAtMs: 5,
            environment: .production, source: .receipt)
        #expect(refused.counterpartUserID == "mallory")
        #expect(refused.kind == .claimRefused)
    }
}
