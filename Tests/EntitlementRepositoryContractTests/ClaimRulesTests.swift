import EntitlementPorts
import Testing

/// The ownership rules as a table: who may take a chain, by owner, token and proof.
struct ClaimRulesTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var owner: String?
        var tokenUser: String?
        var proof: ClaimProof
        var policy: TransferPolicy
        var expected: ClaimDecision
        var testDescription: String {
            "owner \(owner ?? "-"), token \(tokenUser ?? "-"), \(proof), \(policy)"
        }
    }

    static let rows: [Row] = [
        // Nobody owns it: any claim binds, a bare id included.
        Row(owner: nil, tokenUser: nil, proof: .transactionIDOnly, policy: .transfer, expected: .take(from: nil)),
        Row(owner: nil, tokenUser: nil, proof: .deviceProof, policy: .reject, expected: .take(from: nil)),
        // The claimant's own: kept, whatever the proof.
        Row(owner: "v", tokenUser: nil, proof: .transactionIDOnly, policy: .reject, expected: .keep),
        Row(owner: "v", tokenUser: "v", proof: .transactionIDOnly, policy: .transfer, expected: .keep),
        // Another user's, no token: a device's proof follows the policy; a bare id never moves it.
        Row(owner: "u", tokenUser: nil, proof: .deviceProof, policy: .transfer, expected: .take(from: "u")),
        Row(owner: "u", tokenUser: nil, proof: .deviceProof, policy: .reject, expected: .conflict),
        Row(owner: "u", tokenUser: nil, proof: .transactionIDOnly, policy: .transfer,
            expected: .refuse(.bareTransactionID, keptBy: "u")),
        Row(owner: "u", tokenUser: nil, proof: .transactionIDOnly, policy: .reject,
            expected: .refuse(.bareTransactionID, keptBy: "u")),
        // Another account's token: refused under every policy and proof, owned or not yet.
        Row(owner: "u", tokenUser: "u", proof: .deviceProof, policy: .transfer, expected: .refuse(.token, keptBy: "u")),
        Row(owner: nil, tokenUser: "u", proof: .deviceProof, policy: .transfer, expected: .refuse(.token, keptBy: "u")),
        Row(owner: "w", tokenUser: "u", proof: .transactionIDOnly, policy: .reject,
            expected: .refuse(.token, keptBy: "u")),
        // The claimant's own token: theirs, even from another owner, even under reject.
        Row(owner: "w", tokenUser: "v", proof: .transactionIDOnly, policy: .reject, expected: .take(from: "w")),
        Row(owner: nil, tokenUser: "v", proof: .deviceProof, policy: .transfer, expected: .take(from: nil)),
    ]

    @Test(arguments: rows)
    func claimsByV(row: Row) {
        #expect(ClaimRules.decide(claimant: "v", owner: row.owner, tokenUser: row.tokenUser, proof: row.proof,
                                  policy: row.policy) == row.expected)
    }

    @Test func userIDsCompareByteForByte() {
        // "é" composed and decomposed: equal to Swift, two accounts to the store.
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        #expect(ClaimRules.decide(claimant: composed, owner: decomposed, tokenUser: nil, proof: .deviceProof,
                                  policy: .transfer) == .take(from: decomposed))
    }

    @Test func aNotificationBindsToTheTokensUserOnly() {
        #expect(ClaimRules.bindByToken(owner: nil, tokenUser: "u") == .take(from: nil))
        #expect(ClaimRules.bindByToken(owner: "w", tokenUser: "u") == .take(from: "w"))
        #expect(ClaimRules.bindByToken(owner: "u", tokenUser: "u") == .keep)
        #expect(ClaimRules.bindByToken(owner: "w", tokenUser: nil) == .keep)
        #expect(ClaimRules.bindByToken(owner: nil, tokenUser: nil) == .keep)
    }
}
