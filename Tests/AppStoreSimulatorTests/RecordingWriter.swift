import Foundation
import HTTPCore
import Synchronization

/// An HTTP response writer that keeps what it was given.
final class RecordingWriter: HTTPResponseWriter {
    private let response = Mutex<HTTPResponse?>(nil)

    func respond(_ response: HTTPResponse) {
        self.response.withLock { if $0 == nil { $0 = response } }
    }

    func onCancel(_ handler: @escaping @Sendable () -> Void) {}

    var status: Int? { response.withLock { $0?.status } }

    func header(_ name: String) -> String? { response.withLock { $0?.headers[name] } }

    var json: [String: Any]? {
        guard let body = response.withLock({ $0?.body }) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }
}

enum HTTPRequestFactory {
    static func get(_ path: String, headers: HTTPHeaders = HTTPHeaders()) -> HTTPRequest {
        HTTPRequest(version: .http1_1, method: "GET", path: path, headers: headers)
    }

    static func post(_ path: String, _ body: [String: Any]) -> HTTPRequest {
        let data = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
        return HTTPRequest(version: .http1_1, method: "POST", path: path, body: Array(data))
    }
}
