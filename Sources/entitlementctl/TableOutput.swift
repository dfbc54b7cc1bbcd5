import EntitlementAPI

/// Human output: aligned columns, times in ISO 8601 UTC, enum names without their prefix.
enum TableOutput {
    /// Left-aligned columns two spaces apart; the header row in capitals.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        return ([header] + rows).map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                line += column == row.count - 1 ? cell
                    : cell.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0)
            }
            return line
        }.joined(separator: "\n")
    }

    static func entitlements(_ entitlements: [EntitlementV1.Entitlement]) -> String {
        guard !entitlements.isEmpty else { return "(no entitlements)" }
        return table(["PRODUCT", "STATE", "EXPIRES", "AUTO-RENEW", "TRIAL", "ENTITLEMENT", "ORIGINAL TX"],
                     entitlements.map { e in
            // A grant has no product and no chain: "-", and its grant id where the chain's would be.
            [dash(e.productID), name(e.state, prefix: "ENTITLEMENT_STATE_"), time(e.expiresAtMs),
             e.willAutoRenew ? "yes" : "no", e.isTrialPeriod ? "yes" : "no",
             dash(e.entitlementID), dash(e.grantID.isEmpty ? e.originalTransactionID : e.grantID)]
        })
    }

    static func check(_ response: EntitlementV1.CheckEntitlementResponse) -> String {
        [response.active ? "ACTIVE" : "NOT ACTIVE", "as of \(time(response.evaluatedAtMs))",
         entitlements(response.entitlements)].joined(separator: "\n")
    }

    static func submit(_ response: EntitlementV1.SubmitReceiptResponse) -> String {
        let count = response.newTransactions
        let summary = "recorded \(count) new transaction\(count == 1 ? "" : "s")"
            + " (environment \(name(response.environment, prefix: "ENVIRONMENT_")),"
            + " Apple status \(response.appleStatus))"
        return [summary, entitlements(response.entitlements)].joined(separator: "\n")
    }

    /// APPLE TYPE is the notification that reported or confirmed the event (`DID_RENEW`,
    /// `DID_RENEW/BILLING_RECOVERY`), so support staff can match it with App Store Connect;
    /// `-` when only a receipt told us. An ownership event's reason (which other account) is
    /// in `--json` and `entitlementctl owners`: the table keeps the columns scripts read.
    static func history(_ events: [EntitlementV1.HistoryEvent]) -> String {
        guard !events.isEmpty else { return "(no events)" }
        return table(["OCCURRED", "TYPE", "PRODUCT", "TRANSACTION", "ORIGINAL TX", "EXPIRES", "SOURCE",
                      "APPLE TYPE"],
                     events.map { e in
            [time(e.occurredAtMs), name(e.type, prefix: "EVENT_TYPE_"), e.productID, dash(e.transactionID),
             dash(e.originalTransactionID), time(e.expiresAtMs), name(e.source, prefix: "EVENT_SOURCE_"),
             dash(e.appleNotificationType)]
        })
    }

    /// `ENTITLEMENT_STATE_GRACE_PERIOD` reads as `grace_period` in a table.
    static func name(_ value: some CustomStringConvertible, prefix: String) -> String {
        let text = value.description
        return text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)).lowercased() : text
    }

    /// 0 means "not applicable" throughout the API.
    static func time(_ milliseconds: Int64) -> String {
        milliseconds == 0 ? "-" : Timestamps.iso8601(milliseconds: milliseconds)
    }

    static func dash(_ text: String) -> String { text.isEmpty ? "-" : text }
}
