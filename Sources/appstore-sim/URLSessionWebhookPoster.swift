import AppStoreSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs notification bodies with URLSession, as Apple's sender would: JSON, a short timeout.
final class URLSessionWebhookPoster: WebhookPoster {
    private let url: URL
    private let session: URLSession

    init(url: URL) {
        self.url = url
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration)
    }

    func post(_ body: [UInt8]) async -> Int? {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        guard let (_, response) = try? await session.data(for: request) else { return nil }
        return (response as? HTTPURLResponse)?.statusCode
    }
}
