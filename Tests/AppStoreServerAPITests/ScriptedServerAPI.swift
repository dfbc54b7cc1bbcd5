@testable import AppStoreServerAPI
import Foundation
import Synchronization

/// Apple's Server API as a script: each request takes the next answer and is recorded, so a
/// test sees exactly what the client sent and how often. A real ``ServerAPITransport``, no sockets.
final class ScriptedServerAPI: ServerAPITransport {
    enum Answer: Sendable {
        case json(Int, String, retryAfter: String? = nil)
        case transportError
    }

    struct Call: Sendable {
        var method: String
        var url: URL
        var authorization: String
        var body: [UInt8]?
    }

    private let state: Mutex<(answers: [Answer], calls: [Call])>

    init(_ answers: [Answer]) { state = Mutex((answers, [])) }

    var calls: [Call] { state.withLock { $0.calls } }

    func send(_ request: ServerAPIHTTPRequest, timeout: Duration) async throws -> ServerAPIHTTPResponse {
        let answer: Answer = state.withLock { state in
            let authorization = request.headers.first { $0.name == "Authorization" }?.value ?? ""
            state.calls.append(Call(method: request.method, url: request.url, authorization: authorization,
                                    body: request.body))
            return state.answers.isEmpty ? .json(500, "{}") : state.answers.removeFirst()
        }
        switch answer {
        case .json(let status, let body, let retryAfter):
            return ServerAPIHTTPResponse(status: status, retryAfter: retryAfter, body: Array(body.utf8))
        case .transportError:
            throw ServerAPITransportError(reason: "connection refused", detail: "scripted")
        }
    }
}

/// Records the backoff delays instead of sleeping them.
final class RecordedSleeps: Sendable {
    private let delays = Mutex<[Duration]>([])
    var all: [Duration] { delays.withLock { $0 } }
    func sleep(_ duration: Duration) async throws { delays.withLock { $0.append(duration) } }
}
