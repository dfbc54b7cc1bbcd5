import EntitlementPorts
import EntitlementService
import Foundation
import Webhooks

/// The JSON of the webhook admin operations (`entitlementctl webhooks status|replay`).
enum WebhookAdminJSON {
    /// `{"endpoints": [...]}`, one object per endpoint; URLs without credentials or query.
    static func status(_ statuses: [WebhookEndpointStatus], nowMs: Int64) -> String {
        let endpoints: [[String: Any]] = statuses.map { status in
            let age = status.oldestPendingEnqueuedAtMs == 0
                ? 0 : Double(max(0, nowMs - status.oldestPendingEnqueuedAtMs)) / 1_000
            return [
                "url": WebhookEndpointName.redacted(status.endpoint),
                "active": status.active,
                "cursor": ChangeCursor.encode(status.cursor),
                "pending": status.pending,
                "oldest_undelivered_age_seconds": age,
                "delivered": status.delivered,
                "failed_attempts": status.failedAttempts,
                "dead_letters": status.deadLetters,
                "last_error": status.lastError,
                "last_error_at_ms": status.lastErrorAtMs,
            ]
        }
        return encode(["endpoints": endpoints])
    }

    static func error(_ message: String) -> String {
        encode(["error": message])
    }

    /// The `from_cursor` of a replay request body, or nil when the body is not that.
    static func fromCursor(_ body: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object["from_cursor"] as? String
    }

    private static func encode(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
