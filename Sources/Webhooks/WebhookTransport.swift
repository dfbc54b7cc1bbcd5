import Foundation

/// How the dispatcher reaches an endpoint: one POST, what came of it.
///
/// A protocol so the dispatcher's tests can script answers; the interop tests drive the
/// production transport against a real HTTP receiver.
public protocol WebhookTransport: Sendable {
    func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Duration) async
        -> WebhookPostResult
}

/// The answer to one POST: an HTTP status, or why there was none.
public enum WebhookPostResult: Sendable, Hashable {
    case status(Int)
    /// No HTTP answer (refused, timed out, TLS): a short reason for the status report.
    case failed(String)

    /// Only a 2xx delivers; a redirect is not followed (the endpoint's URL should be fixed).
    public var isSuccess: Bool {
        if case let .status(code) = self { return (200..<300).contains(code) }
        return false
    }

    /// What the status report and the log say about a failed attempt.
    public var failureDescription: String {
        switch self {
        case let .status(code): "HTTP \(code)"
        case let .failed(reason): reason
        }
    }
}
