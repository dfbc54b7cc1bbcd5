import EntitlementAPI

extension ProtoJSON {
    static func transactionFact(_ t: EntitlementV1.TransactionFact) -> JSONValue {
        .object([
            ("transactionId", .string(t.transactionID)),
            ("productId", .string(t.productID)),
            ("purchasedAtMs", .int64(t.purchasedAtMs)),
            ("expiresAtMs", .int64(t.expiresAtMs)),
            ("revokedAtMs", .int64(t.revokedAtMs)),
            ("upgraded", .bool(t.upgraded)),
            ("source", .enumeration(t.source)),
            ("decisive", .bool(t.decisive)),
        ])
    }

    static func explain(_ r: EntitlementV1.ExplainEntitlementResponse) -> JSONValue {
        .object([
            ("evaluatedAtMs", .int64(r.evaluatedAtMs)),
            ("explanations", .array(r.explanations.map { e in
                .object([("entitlement", entitlement(e.entitlement ?? EntitlementV1.Entitlement())),
                         ("reason", .string(e.reason)),
                         ("transactions", .array(e.transactions.map(transactionFact)))])
            })),
        ])
    }
}

extension TableOutput {
    /// One block per entitlement: what it is, why (the server's sentence), then the chain's
    /// transactions newest first, `*` marking the one the state rests on.
    static func explain(_ response: EntitlementV1.ExplainEntitlementResponse) -> String {
        var blocks = ["as of \(time(response.evaluatedAtMs))"]
        guard !response.explanations.isEmpty else { return (blocks + ["(no entitlements)"]).joined(separator: "\n") }
        for explanation in response.explanations {
            let e = explanation.entitlement ?? EntitlementV1.Entitlement()
            let heading = "\(e.productID): \(name(e.state, prefix: "ENTITLEMENT_STATE_"))"
                + " (entitlement \(dash(e.entitlementID)), original transaction \(dash(e.originalTransactionID)))"
            let transactions = table(
                ["", "TRANSACTION", "PRODUCT", "PURCHASED", "EXPIRES", "REVOKED", "UPGRADED", "SOURCE"],
                explanation.transactions.map { t in
                    [t.decisive ? "*" : "", t.transactionID, t.productID, time(t.purchasedAtMs), time(t.expiresAtMs),
                     time(t.revokedAtMs), t.upgraded ? "yes" : "no", name(t.source, prefix: "EVENT_SOURCE_")]
                })
            let indented = transactions.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
            blocks.append((["", heading, "  why: " + explanation.reason] + indented).joined(separator: "\n"))
        }
        return blocks.joined(separator: "\n")
    }
}
