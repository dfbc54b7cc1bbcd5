import HTTPCore
import RPCCore
import Synchronization
import XCTest

/// Keeps the one response a service gives.
final class RecordingResponseWriter: HTTPResponseWriter {
    private let responses = Mutex<[HTTPResponse]>([])
    var response: HTTPResponse? { responses.withLock { $0.first } }
    func respond(_ response: HTTPResponse) { responses.withLock { $0.append(response) } }
    func onCancel(_ handler: @escaping @Sendable () -> Void) {}
}

final class BearerTokenGateTests: XCTestCase {
    let inner: HTTPRouter = {
        var router = HTTPRouter()
        router.add("GET", "/metrics") { _, writer in writer.respond(.text(200, "secret numbers\n")) }
        return router
    }()

    func answer(_ gate: BearerTokenGate, authorization: String?, path: String = "/metrics") -> HTTPResponse? {
        var headers = HTTPHeaders()
        if let authorization { headers.add(name: "authorization", value: authorization) }
        let writer = RecordingResponseWriter()
        gate.handle(
            HTTPRequest(version: .http1_1, method: "GET", path: path, headers: headers, body: []), writer: writer)
        return writer.response
    }

    func testRefusesWithoutAnAcceptedToken() throws {
        let gate = BearerTokenGate(
            authenticator: try BearerTokenAuthenticator(fileContents: "admin-token\n"), protecting: inner)
        for authorization in [nil, "", "Bearer ", "Bearer wrong", "Basic admin-token", "admin-token"] {
            let response = try XCTUnwrap(answer(gate, authorization: authorization))
            XCTAssertEqual(response.status, 401, "\(authorization ?? "nil")")
            XCTAssertEqual(response.headers["www-authenticate"], "Bearer")
            XCTAssertFalse(String(decoding: response.body, as: UTF8.self).contains("secret"))
        }
        // Unknown paths are refused too: an unauthenticated caller learns nothing of the routes.
        XCTAssertEqual(answer(gate, authorization: nil, path: "/nope")?.status, 401)
    }

    func testPassesAcceptedTokensThrough() throws {
        let gate = BearerTokenGate(
            authenticator: try BearerTokenAuthenticator(fileContents: "admin-token\n"), protecting: inner)
        XCTAssertEqual(answer(gate, authorization: "Bearer admin-token")?.status, 200)
        XCTAssertEqual(answer(gate, authorization: "Bearer admin-token", path: "/nope")?.status, 404)
    }

    func testWithoutTokensEverythingPasses() throws {
        let gate = BearerTokenGate(authenticator: nil, protecting: inner)
        XCTAssertEqual(answer(gate, authorization: nil)?.status, 200)
    }
}
