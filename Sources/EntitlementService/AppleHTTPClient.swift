import AppStoreServerAPI
import Foundation
import HTTPClient
import ServiceRuntime

/// How the verifier reaches Apple: one POST, the HTTP status and body back.
///
/// A protocol so tests can count and shape calls, but the production client and the tests'
/// fake Apple both speak real HTTP on real sockets.
public protocol AppleHTTPClient: Sendable {
    func post(_ url: URL, body: [UInt8], timeout: Duration) async throws -> (status: Int, body: [UInt8])
}

/// The production client: ``HTTPClient`` (libcurl, one multi handle on its own thread).
///
/// It replaced URLSession, which wraps the same libcurl: at zero Apple latency URLSession's
/// queue hops were about half of SubmitReceipt's CPU. Connections to Apple stay
/// alive in a pool sized to our concurrency bound, and a cancelled Swift task ends its transfer.
public final class CurlAppleClient: AppleHTTPClient {
    let http: HTTPClient

    public init(maxConnectionsPerHost: Int) {
        http = HTTPClient(maxConnectionsPerHost: maxConnectionsPerHost)
    }

    public func post(_ url: URL, body: [UInt8], timeout: Duration) async throws -> (status: Int, body: [UInt8]) {
        let request = HTTPClientRequest(
            method: "POST", url: url.absoluteString, headers: [("Content-Type", "application/json")], body: body)
        do {
            let response = try await http.send(request, timeout: timeout)
            return (response.status, response.body)
        } catch let error as HTTPClientError {
            throw AppleTransportError(error)
        }
    }
}

/// Why a POST to Apple got no HTTP answer. verifyReceipt and the App Store Server API ride the
/// same HTTP client and fail the same ways, so one type (the Server API's) serves both.
public typealias AppleTransportError = ServerAPITransportError

extension ServerAPITransportError {
    /// Keeps the HTTP client's plain words for callers and its full text (libcurl's code and
    /// message, the host) for the server's log only.
    init(_ error: HTTPClientError) {
        self.init(reason: error.kind.summary, detail: "\(error)")
    }
}
