import Foundation
import RPCClient
import ServiceRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls entitlementd's admin endpoints (HTTP, JSON) on --admin, or on --server without it.
struct AdminClient {
    let base: URL
    let token: String?
    let timeout: Duration

    init(arguments: CLIArguments, timeout: Duration) throws(FlagError) {
        let address = arguments.global.string("admin") ?? arguments.global.string("server") ?? ""
        guard ServerAddress(parsing: address) != nil, let base = URL(string: "http://\(address)") else {
            throw FlagError("--admin must be HOST:PORT (e.g. 127.0.0.1:9090), got '\(address)'")
        }
        self.base = base
        self.token = arguments.global.string("token")
        self.timeout = timeout
    }

    /// The response body of a 2xx answer; anything else throws ``AdminCallError`` with the
    /// server's message.
    func call(_ method: String, _ path: String, body: Data? = nil) throws -> String {
        // Appended as text: appendingPathComponent would percent-encode a query's "?".
        guard let url = URL(string: base.absoluteString + path) else {
            throw AdminCallError(description: "cannot form an admin URL from \(base.absoluteString) and \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = Double(timeout.components.seconds) + 1
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let token, !token.isEmpty { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let answer = Locked<Result<(Int, Data), any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            answer.withLock { $0 = error.map { .failure($0) } ?? .success((status, data ?? Data())) }
            done.signal()
        }.resume()
        done.wait()
        let (status, data) = try answer.withLock { $0! }.mapError {
            AdminCallError(description: "cannot reach the admin endpoint at \(base.absoluteString): "
                           + $0.localizedDescription)
        }.get()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard (200..<300).contains(status) else {
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            let message = object?["error"] as? String ?? text
            throw AdminCallError(description: "\(method) \(path) answered \(status): \(message)")
        }
        return text
    }
}

/// An admin call that failed; the text says what the server or the connection said.
struct AdminCallError: Error, CustomStringConvertible {
    let description: String
}
