import Foundation
import ServiceRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the verifier reaches Apple: one POST, the HTTP status and body back.
///
/// A protocol so tests can count and shape calls, but the production client and the tests'
/// fake Apple both speak real HTTP on real sockets.
public protocol AppleHTTPClient: Sendable {
    func post(_ url: URL, body: [UInt8], timeout: Duration) async throws -> (status: Int, body: [UInt8])
}

/// The production client: FoundationNetworking's URLSession.
///
/// Chosen over driving libcurl directly: URLSession already wraps the same system libcurl
/// (with its nghttp2 and OpenSSL, so nothing new is linked), keeps connections to Apple alive
/// in a pool sized to our concurrency bound, and cancels the transfer when the awaiting Swift
/// task is cancelled, which a hand-written curl multi loop would have to re-create. Its cost,
/// measured by Benchmarks/, is a fraction of a millisecond per call against Apple's 100 ms+.
public final class URLSessionAppleClient: AppleHTTPClient {
    let session: URLSession

    public init(maxConnectionsPerHost: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 60
        session = URLSession(configuration: configuration)
    }

    public func post(_ url: URL, body: [UInt8], timeout: Duration) async throws -> (status: Int, body: [UInt8]) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.timeoutInterval = timeout.inSeconds
        do {
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, [UInt8](data))
        } catch let error as URLError where error.code != .cancelled {
            throw AppleTransportError(error)
        }
    }
}

/// Why a POST to Apple got no HTTP answer: a few words a caller may read, and Foundation's full
/// text (domain, code, the URL) for the server's log only.
public struct AppleTransportError: Error, Sendable, CustomStringConvertible {
    /// E.g. "connection refused": says what failed without echoing configuration back.
    public var reason: String
    public var detail: String

    public init(reason: String, detail: String) {
        self.reason = reason
        self.detail = detail
    }

    init(_ error: URLError) {
        self.init(reason: AppleTransportError.reason(for: error.code), detail: "\(error)")
    }

    public var description: String { "\(reason): \(detail)" }

    /// The URLError codes libcurl's failures surface as, in plain words.
    static func reason(for code: URLError.Code) -> String {
        switch code {
        case .cannotConnectToHost: return "connection refused"
        case .timedOut: return "timed out"
        case .cannotFindHost, .dnsLookupFailed: return "host name not resolved"
        case .networkConnectionLost: return "connection lost"
        case .notConnectedToInternet: return "no network"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return "TLS handshake failed"
        case .badServerResponse, .cannotParseResponse: return "malformed HTTP response"
        default: return "network error \(code.rawValue)"
        }
    }
}
