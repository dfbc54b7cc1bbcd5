import Foundation
import ServiceRuntime

extension CommandRunner {
    /// `reconcile [--since TIME]`: one reconciliation with Apple's notification history now,
    /// through the admin endpoint; prints what it found and applied per environment.
    func reconcile() throws -> ExitCode {
        var request: [String: Any] = [:]
        if let since = arguments.local.string("since") {
            guard let ms = Timestamps.milliseconds(parsing: since) else {
                throw FlagError("--since must be ISO 8601 (2026-04-01T00:00:00Z) or Unix ms, got '\(since)'")
            }
            request["since_ms"] = ms
        }
        let admin = try AdminClient(arguments: arguments, timeout: timeout)
        let body: String
        do {
            body = try admin.call("POST", "/admin/reconcile", body: try JSONSerialization.data(withJSONObject: request))
        } catch let error as AdminCallError where error.description.contains("answered 503: {") {
            // An incomplete run (503) still reports what it applied: print it, then fail.
            let text = error.description
            body = String(text[text.range(of: "answered 503: ")!.upperBound...])
        }
        let report = try AdminAnswer.object(body, "reconciliation report")
        print(json ? body : ReconcileOutput.render(report))
        return report["succeeded"] as? Bool == true ? .ok : .failure
    }
}

/// `reconcile`'s table: one line per environment, then the totals.
enum ReconcileOutput {
    static func render(_ report: [String: Any]) -> String {
        func int(_ object: [String: Any], _ key: String) -> Int64 { (object[key] as? NSNumber)?.int64Value ?? 0 }
        var lines: [String] = []
        for run in report["environments"] as? [[String: Any]] ?? [] {
            let window = Timestamps.iso8601(milliseconds: int(run, "start_ms")) + " .. "
                + Timestamps.iso8601(milliseconds: int(run, "end_ms"))
            var line = "\(run["environment"] as? String ?? "?")  \(window)  pages \(int(run, "pages"))  "
                + "found \(int(run, "found"))  applied \(int(run, "applied"))  duplicate \(int(run, "duplicate"))  "
                + "rejected \(int(run, "rejected"))"
            if let error = run["error"] as? String {
                line += "  INCOMPLETE: \(error) (watermark unchanged)"
            }
            lines.append(line)
        }
        lines.append("found \(int(report, "found")), applied \(int(report, "applied")), "
                     + "duplicate \(int(report, "duplicate")), rejected \(int(report, "rejected"))")
        return lines.joined(separator: "\n")
    }
}
