import Foundation
import HTTPClient

/// The production transport: the service's one HTTP client (libcurl), with its own pool of
/// connections bounded per endpoint host, redirects answered as the 3xx they are, TLS verified,
/// and the response body ignored.
///
/// Its own ``HTTPClient`` rather than the one that calls Apple: a slow or dead endpoint then
/// holds only its own connections and its own loop thread, never a verifyReceipt call's.
public final class HTTPClientWebhookTransport: WebhookTransport {
    private let client: HTTPClient

    /// `maxConnectionsPerHost`: the dispatcher's POSTs in flight per endpoint, so each can have
    /// its own connection instead of queueing inside libcurl.
    public init(maxConnectionsPerHost: Int) {
        client = HTTPClient(maxConnectionsPerHost: maxConnectionsPerHost)
    }

    /// A redirect is a failed attempt, never followed: a signed body must not reach a host the
    /// operator did not configure. `timeout` bounds the whole POST, connecting included.
    public func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Duration) async
        -> WebhookPostResult {
        let request = HTTPClientRequest(
            method: "POST", url: url.absoluteString, headers: headers.map { (name: $0.0, value: $0.1) }, body: body)
        do {
            return .status(try await client.send(request, timeout: timeout).status)
        } catch let error as HTTPClientError {
            return .failed(error.kind.summary)
        } catch {
            // CancellationError: the dispatcher is stopping and records no outcome for it.
            return .failed("cancelled")
        }
    }
}
