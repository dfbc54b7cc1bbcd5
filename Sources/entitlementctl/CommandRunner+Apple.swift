import Foundation
import ServiceRuntime

extension CommandRunner {
    /// `apple test-notification [--environment sandbox] [--wait 30s]`: Apple sends TEST to the
    /// server notification URL; prints Apple's send attempts and whether it arrived at this
    /// entitlementd. Exit 0 only if it arrived: the check that the webhook path works end to end.
    func apple(_ action: String) throws -> ExitCode {
        guard action == "test-notification" else {
            throw FlagError("unknown 'apple' action '\(action)' (actions: test-notification)")
        }
        let environment = arguments.local.string("environment") ?? "production"
        guard ["production", "sandbox"].contains(environment) else {
            throw FlagError("--environment must be production or sandbox, got '\(environment)'")
        }
        guard let wait = try arguments.local.duration("wait"), wait >= .zero else {
            throw FlagError("--wait must be a duration (30s, 2m)")
        }
        let request = try JSONSerialization.data(withJSONObject: [
            "environment": environment, "wait_ms": wait.components.seconds * 1000,
        ])
        let admin = try AdminClient(arguments: arguments, timeout: timeout + wait)
        let body: String
        do {
            body = try admin.call("POST", "/admin/apple/test-notification", body: request)
        } catch let error as AdminCallError where error.description.contains("answered 504: {") {
            // Not arrived: the report still says what Apple tried.
            let text = error.description
            body = String(text[text.range(of: "answered 504: ")!.upperBound...])
        }
        let report = try AdminAnswer.object(body, "test notification report")
        let arrived = report["arrived"] as? Bool == true
        if json {
            print(body)
        } else {
            var lines = ["TEST \(report["notification_uuid"] as? String ?? "?") (\(environment)): "
                         + (arrived ? "arrived at the webhook" : "did NOT arrive at this entitlementd")]
            for attempt in report["send_attempts"] as? [[String: Any]] ?? [] {
                let at = (attempt["attempt_date_ms"] as? NSNumber)?.int64Value ?? 0
                lines.append("  \(Timestamps.iso8601(milliseconds: at))  \(attempt["result"] as? String ?? "?")")
            }
            if (report["send_attempts"] as? [Any])?.isEmpty ?? true { lines.append("  Apple reports no attempt yet") }
            print(lines.joined(separator: "\n"))
        }
        return arrived ? .ok : .failure
    }
}
