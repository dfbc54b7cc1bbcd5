import Foundation
import ServiceRuntime

extension CommandRunner {
    /// `webhooks status` and `webhooks replay --from CURSOR`, through the admin endpoints.
    func webhooks(_ action: String) throws -> ExitCode {
        let admin = try AdminClient(arguments: arguments, timeout: timeout)
        switch action {
        case "status":
            let body = try admin.call("GET", "/admin/webhooks")
            print(json ? body : try WebhookStatusTable.render(body))
            return .ok
        case "replay":
            guard let cursor = arguments.local.string("from"), !cursor.isEmpty else {
                throw FlagError("'webhooks replay' needs --from CURSOR (a cursor from a webhook body or a watch)")
            }
            let request = try JSONSerialization.data(withJSONObject: ["from_cursor": cursor])
            let body = try admin.call("POST", "/admin/webhooks/replay", body: request)
            if json {
                print(body)
            } else {
                let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
                let count = (object?["enqueued"] as? NSNumber)?.intValue ?? 0
                print("enqueued \(count) deliveries (changes after \(cursor), every endpoint; "
                      + "receivers drop duplicates by Webhook-Id)")
            }
            return .ok
        default:
            throw FlagError("unknown webhooks action '\(action)' (status or replay)")
        }
    }
}

/// The `webhooks status` table, from the admin endpoint's JSON.
enum WebhookStatusTable {
    static func render(_ json: String) throws -> String {
        let endpoints = try AdminAnswer.list("endpoints", in: json, "webhook status")
        if endpoints.isEmpty { return "no webhook endpoints (start entitlementd with --webhook-url)" }
        var lines = [["ENDPOINT", "PENDING", "OLDEST", "DELIVERED", "FAILED", "DEAD", "LAST ERROR"]]
        for endpoint in endpoints {
            func number(_ key: String) -> String { ((endpoint[key] as? NSNumber)?.int64Value).map(String.init) ?? "?" }
            let age = (endpoint["oldest_undelivered_age_seconds"] as? NSNumber)?.doubleValue ?? 0
            let inactive = (endpoint["active"] as? Bool) == false
            let url = (endpoint["url"] as? String ?? "?") + (inactive ? " (inactive)" : "")
            lines.append([url, number("pending"), age > 0 ? String(format: "%.1fs", age) : "-", number("delivered"),
                          number("failed_attempts"), number("dead_letters"), endpoint["last_error"] as? String ?? ""])
        }
        let widths = (0..<lines[0].count).map { column in lines.map { $0[column].count }.max() ?? 0 }
        return lines.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0)
            }.joined()
        }.joined(separator: "\n")
    }
}
