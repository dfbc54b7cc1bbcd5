import AppStoreServerAPI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The App Store Server API rides the same URLSession (and so the same libcurl connection pool)
/// as verifyReceipt: one HTTP client for everything the service asks Apple.
extension URLSessionAppleClient: ServerAPITransport {
    public func send(_ request: ServerAPIHTTPRequest, timeout: Duration) async throws -> ServerAPIHTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body.map { Data($0) }
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.timeoutInterval = timeout.inSeconds
        do {
            let (data, response) = try await session.data(for: urlRequest)
            let http = response as? HTTPURLResponse
            return ServerAPIHTTPResponse(status: http?.statusCode ?? 0,
                                         retryAfter: http?.value(forHTTPHeaderField: "Retry-After"),
                                         body: [UInt8](data))
        } catch let error as URLError where error.code != .cancelled {
            throw ServerAPITransportError(reason: AppleTransportError.reason(for: error.code), detail: "\(error)")
        }
    }
}
