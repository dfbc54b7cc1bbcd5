@testable import EntitlementDaemon
import EntitlementPorts
import Foundation
import Testing

/// The webhook admin JSON: what `entitlementctl webhooks status` reads, URLs without secrets.
struct WebhookAdminJSONTests {
    @Test func statusReportsEveryCounterAndTheOldestAgeWithoutTheURLsQuery() throws {
        let status = WebhookEndpointStatus(
            endpoint: "https://user:pw@hooks.example/in?token=t0p", active: true, cursor: 42, pending: 3,
            oldestPendingEnqueuedAtMs: 10_000, delivered: 7, failedAttempts: 5, deadLetters: 1, lastError: "HTTP 503",
            lastErrorAtMs: 11_000)
        let text = WebhookAdminJSON.status([status], nowMs: 12_500)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let endpoint = try #require((object["endpoints"] as? [[String: Any]])?.first)
        #expect(endpoint["url"] as? String == "https://hooks.example/in")
        #expect(endpoint["cursor"] as? String == "c1.000000000000002a")
        #expect(endpoint["pending"] as? Int == 3)
        #expect(endpoint["oldest_undelivered_age_seconds"] as? Double == 2.5)
        #expect(endpoint["delivered"] as? Int == 7)
        #expect(endpoint["failed_attempts"] as? Int == 5)
        #expect(endpoint["dead_letters"] as? Int == 1)
        #expect(endpoint["last_error"] as? String == "HTTP 503")
        #expect(!text.contains("t0p") && !text.contains("pw"))
    }

    @Test func nothingPendingIsAgeZero() throws {
        let text = WebhookAdminJSON.status([WebhookEndpointStatus(endpoint: "http://h/x", active: false, cursor: 0)],
                                           nowMs: 99)
        #expect(text.contains("\"oldest_undelivered_age_seconds\":0"))
        #expect(text.contains("\"active\":false"))
    }

    @Test(arguments: [
        (#"{"from_cursor":"17"}"#, "17" as String?), (#"{"from_cursor":17}"#, nil), ("not json", nil), ("{}", nil),
    ])
    func replayRequestNamesTheCursor(body: String, cursor: String?) {
        #expect(WebhookAdminJSON.fromCursor(Array(body.utf8)) == cursor)
    }
}
