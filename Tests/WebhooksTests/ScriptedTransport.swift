import Foundation
import Synchronization
import Webhooks

/// A webhook endpoint scripted by the test: answers a status per request (by default 200)
/// and records every request it received.
final class ScriptedTransport: WebhookTransport {
    struct Request: Sendable {
        var url: URL
        var headers: [String: String]
        var body: String
    }

    private let state = Mutex<(requests: [Request], answer: @Sendable (Request, Int) -> WebhookPostResult)>(
        ([], { _, _ in .status(200) }))

    /// `answer` gets each request and its index among all requests so far.
    func answer(with answer: @escaping @Sendable (Request, Int) -> WebhookPostResult) {
        state.withLock { $0.answer = answer }
    }

    var requests: [Request] { state.withLock { $0.requests } }

    func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> WebhookPostResult {
        let request = Request(url: url, headers: Dictionary(headers, uniquingKeysWith: { $1 }),
                              body: String(decoding: body, as: UTF8.self))
        let (answer, index) = state.withLock { state in
            state.requests.append(request)
            return (state.answer, state.requests.count - 1)
        }
        return answer(request, index)
    }
}
