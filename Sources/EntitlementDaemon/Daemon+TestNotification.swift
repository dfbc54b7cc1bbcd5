import AppStoreServerAPI
import Entitlements
import EntitlementService
import Foundation
import HTTPCore
import HTTPServer

extension Daemon {
    /// `POST /admin/apple/test-notification` with `{"environment": "sandbox"|"production",
    /// "wait_ms": N}`: Apple sends TEST to the webhook; the answer says whether it arrived here
    /// and Apple's send attempts. 200 when it arrived, 504 when it did not within the wait, 412
    /// without the Server API, 502 when Apple could not be asked.
    func testNotificationHandler(
        _ configured: (TestNotifications, AppStoreServerClient)?
    ) -> HTTPRouter.Handler {
        { request, writer in
            guard let (log, client) = configured else {
                writer.respond(Self.adminJSON(412, [
                    "error": "the test notification needs the App Store Server API: start entitlementd with "
                        + "--app-store-key, --app-store-key-id, --app-store-issuer-id and --bundle-id",
                ]))
                return
            }
            let body = request.body.isEmpty ? [:]
                : (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
            let environmentName = body?["environment"] as? String ?? "production"
            guard let body, let environment = Environment(rawValue: environmentName) else {
                writer.respond(Self.adminJSON(400, [
                    "error": "the body must be a JSON object like {\"environment\": \"sandbox\"} "
                        + "(production or sandbox)",
                ]))
                return
            }
            let waitMs = (body["wait_ms"] as? NSNumber)?.int64Value ?? 30_000
            Task {
                do {
                    let report = try await log.check(client: client, environment: environment,
                                                     waitFor: .milliseconds(min(max(waitMs, 0), 300_000)))
                    writer.respond(Self.adminJSON(report.arrived ? 200 : 504, [
                        "environment": environment.rawValue, "notification_uuid": report.notificationUUID,
                        "arrived": report.arrived,
                        "send_attempts": report.sendAttempts.map {
                            ["attempt_date_ms": $0.attemptDateMs, "result": $0.result] as [String: Any]
                        },
                    ]))
                } catch let error as ServerAPIError {
                    writer.respond(Self.adminJSON(502, ["error": error.message]))
                } catch {
                    writer.respond(Self.adminJSON(502, ["error": "asking Apple for a test notification failed"]))
                }
            }
        }
    }
}
