import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

/// The production transport: FoundationNetworking's URLSession (the system libcurl), one pool
/// of connections per endpoint host, redirects refused, the response body ignored.
public final class URLSessionWebhookTransport: NSObject, WebhookTransport, URLSessionTaskDelegate, @unchecked Sendable {
    // Immutable after init; URLSession is thread-safe.
    private var session: URLSession!

    public init(maxConnectionsPerHost: Int) {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    public func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Duration) async
        -> WebhookPostResult {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        do {
            let (_, response) = try await session.data(for: request)
            return .status((response as? HTTPURLResponse)?.statusCode ?? 0)
        } catch let error as URLError {
            return .failed(Self.reason(error.code))
        } catch {
            return .failed("network error")
        }
    }

    /// A redirect is answered as the 3xx it is (a failed attempt), never followed: a signed
    /// body must not be sent to a host the operator did not configure.
    public func urlSession(_ session: URLSession, task: URLSessionTask,
                           willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
                           completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    static func reason(_ code: URLError.Code) -> String {
        switch code {
        case .cannotConnectToHost: "connection refused"
        case .timedOut: "timed out"
        case .cannotFindHost, .dnsLookupFailed: "host name not resolved"
        case .networkConnectionLost: "connection lost"
        case .cancelled: "cancelled"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            "TLS handshake failed"
        case .badServerResponse, .cannotParseResponse: "malformed HTTP response"
        default: "network error \(code.rawValue)"
        }
    }
}
