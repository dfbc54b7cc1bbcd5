import AppStoreSimulator
import Foundation
import HTTPClient

/// POSTs notification bodies through the project's HTTP client, as Apple's sender would: JSON,
/// a 30-second limit, a redirect not followed.
final class HTTPClientWebhookPoster: WebhookPoster {
    private let url: URL
    /// Shuffled delivery posts many notifications at once: six connections keep such a burst
    /// moving without opening one per notification.
    private let client = HTTPClient(maxConnectionsPerHost: 6)

    init(url: URL) {
        self.url = url
    }

    /// The status, or nil when no HTTP answer came back (the planner records it as undelivered).
    func post(_ body: [UInt8]) async -> Int? {
        let request = HTTPClientRequest(
            method: "POST", url: url.absoluteString, headers: [("Content-Type", "application/json")], body: body)
        return try? await client.send(request, timeout: .seconds(30)).status
    }
}
