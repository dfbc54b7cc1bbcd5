import Foundation
import HTTPClient
import RPCClient
import ServiceRuntime

/// Calls entitlementd's admin endpoints (HTTP, JSON) on --admin.
///
/// There is no default: entitlementd serves admin operations on its --admin-listen port only,
/// never on the service port --server names, so a missing --admin is answered with how to
/// turn them on rather than a 404 from the wrong port.
///
/// Through the service's one HTTP client (libcurl), waited for on the calling thread: the
/// commands are synchronous, one call or two per run.
struct AdminClient {
    let base: URL
    let token: String?
    let timeout: Duration
    private let http = HTTPClient(maxConnectionsPerHost: 1)

    init(arguments: CLIArguments, timeout: Duration) throws(FlagError) {
        guard let address = arguments.global.string("admin") else {
            throw FlagError("admin operations need --admin HOST:PORT (or ENTITLEMENTCTL_ADMIN): the address of "
                            + "entitlementd's --admin-listen, where they are served; start entitlementd with "
                            + "--admin-listen 127.0.0.1:9090 to turn them on")
        }
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
        var headers: [(name: String, value: String)] = []
        if body != nil { headers.append((name: "Content-Type", value: "application/json")) }
        if let token, !token.isEmpty { headers.append((name: "Authorization", value: "Bearer \(token)")) }
        let request = HTTPClientRequest(method: method, url: url.absoluteString, headers: headers,
                                        body: body.map { Array($0) })
        let response: HTTPClientResponse
        do {
            // The whole exchange, connecting included: --timeout with the second of slack the
            // admin calls have always had.
            response = try http.sendBlocking(request, timeout: timeout + .seconds(1))
        } catch {
            let reason = (error as? HTTPClientError)?.kind.summary ?? "\(error)"
            throw AdminCallError(description: "cannot reach the admin endpoint at \(base.absoluteString): \(reason)")
        }
        let (status, data) = (response.status, Data(response.body))
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

/// The admin endpoints' JSON answers as the CLI reads them: an answer of another shape fails
/// naming what it should have been, so a mismatched server is plain from the message.
enum AdminAnswer {
    /// `body` as a JSON object; `what` names the answer in the error.
    static func object(_ body: String, _ what: String) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            throw mismatch(body, what)
        }
        return object
    }

    /// The objects listed under `key` in `body`.
    static func list(_ key: String, in body: String, _ what: String) throws -> [[String: Any]] {
        guard let list = try object(body, what)[key] as? [[String: Any]] else { throw mismatch(body, what) }
        return list
    }

    private static func mismatch(_ body: String, _ what: String) -> AdminCallError {
        AdminCallError(description: "the server's \(what) is not the expected JSON: \(body)")
    }
}
