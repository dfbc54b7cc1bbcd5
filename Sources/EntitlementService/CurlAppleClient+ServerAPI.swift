import AppStoreServerAPI
import Foundation
import HTTPClient

/// The App Store Server API rides the same HTTP client (and so the same libcurl connection
/// pool) as verifyReceipt: one HTTP client for everything the service asks Apple.
extension CurlAppleClient: ServerAPITransport {
    public func send(_ request: ServerAPIHTTPRequest, timeout: Duration) async throws -> ServerAPIHTTPResponse {
        let httpRequest = HTTPClientRequest(
            method: request.method, url: request.url.absoluteString, headers: request.headers, body: request.body)
        do {
            let response = try await http.send(httpRequest, timeout: timeout)
            return ServerAPIHTTPResponse(status: response.status, retryAfter: response.header("Retry-After"),
                                         body: response.body)
        } catch let error as HTTPClientError {
            throw ServerAPITransportError(error)
        }
    }
}
