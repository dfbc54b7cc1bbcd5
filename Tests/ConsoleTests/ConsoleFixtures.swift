import EntitlementAPI
import HTTPCore
import RPCCore
import Synchronization
import TestSupport
@testable import Console

/// A response writer that keeps the first response it is given.
final class RecordingWriter: HTTPResponseWriter {
    private let response = Mutex<HTTPResponse?>(nil)

    func respond(_ response: HTTPResponse) { self.response.withLock { if $0 == nil { $0 = response } } }

    func onCancel(_ handler: @escaping @Sendable () -> Void) {}

    var recorded: HTTPResponse? { response.withLock { $0 } }
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let ms = Mutex<Int64>(1_800_000_000_000)
    var now: @Sendable () -> Int64 { { [self] in ms.withLock { $0 } } }
    func advance(_ by: Int64) { ms.withLock { $0 += by } }
}

/// The in-memory desk: one customer, "u1", with one grant; records what it is asked to do.
final class RecordingDesk: CustomerDesk {
    let actions = Mutex<[String]>([])

    func search(_ term: String) async throws -> [CustomerMatch] {
        term == "u1" || term == "tx-1" ? [CustomerMatch(userID: "u1", matchedBy: "user id")] : []
    }

    func customer(userID: String, historyPage: String?) async throws -> CustomerRecord {
        var grant = EntitlementV1.Entitlement()
        grant.entitlementID = "pro"
        grant.grantID = "g0001"
        grant.state = .active
        grant.productType = .promotional
        var event = EntitlementV1.HistoryEvent()
        event.type = .grant
        event.actor = "alice"
        event.reason = "<b>goodwill</b>"
        return CustomerRecord(
            userID: userID, entitlements: [EntitlementRow(entitlement: grant, explanation: "active because of grant",
                                                          ownerSinceMs: nil)],
            history: [event])
    }

    func grant(userID: String, entitlementID: String, expiresAtMs: Int64, reason: String,
               by caller: Principal) async throws -> String {
        guard !entitlementID.isEmpty else { throw RPCError(.invalidArgument, "entitlement_id is required") }
        actions.withLock { $0.append("grant \(userID) \(entitlementID) by \(caller.actor): \(reason)") }
        return "g0002"
    }

    func revokeGrant(userID: String, grantID: String, reason: String, by caller: Principal) async throws {
        actions.withLock { $0.append("revoke \(userID) \(grantID) by \(caller.actor): \(reason)") }
    }

    func refresh(userID: String, reason: String, by caller: Principal) async throws -> Int {
        actions.withLock { $0.append("refresh \(userID) by \(caller.actor): \(reason)") }
        return 0
    }
}

/// A console over a ``RecordingDesk`` with tokens for every role, and helpers to call it.
struct ConsoleHarness {
    static let tokens = """
        viewer-token name=vera roles=viewer
        support-token name=sam roles=support
        admin-token name=ada roles=admin
        rpc-token name=bob roles=rpc
        legacy-token name=lee
        """
    let desk: RecordingDesk
    let clock: TestClock
    let console: Console

    init(trustForwardedHeaders: Bool = false) throws {
        let (desk, clock) = (RecordingDesk(), TestClock())
        self.desk = desk
        self.clock = clock
        console = Console(
            configuration: .init(trustForwardedHeaders: trustForwardedHeaders, sessionLifetimeMs: 3_600_000),
            authenticator: try BearerTokenAuthenticator(fileContents: Self.tokens), desk: desk,
            sessions: ConsoleSessions(lifetimeMs: 3_600_000, now: clock.now),
            throttle: SignInThrottle(limit: 3, windowMs: 60_000, now: clock.now), logger: nil)
    }

    func send(_ method: String, _ path: String, body: String = "", headers: HTTPHeaders = HTTPHeaders())
        async throws -> HTTPResponse {
        let writer = RecordingWriter()
        console.handle(HTTPRequest(version: .http1_1, method: method, path: path, headers: headers,
                                   body: Array(body.utf8)), writer: writer)
        try await eventually("the console answers \(method) \(path)") { writer.recorded != nil }
        return writer.recorded!
    }

    /// Signs in with `token`; returns the cookie header to send and the session's CSRF token.
    func signIn(_ token: String) async throws -> (cookie: HTTPHeaders, csrf: String) {
        let response = try await send("POST", "/console/sign-in", body: "token=" + token)
        guard response.status == 303, let setCookie = response.headers["set-cookie"],
              let value = setCookie.split(separator: ";").first else {
            throw HarnessError(message: "sign-in with \(token) answered \(response.status)")
        }
        let id = String(value.dropFirst("console_session=".count))
        guard let session = console.sessions.session(id: id) else { throw HarnessError(message: "no session") }
        return (["cookie": String(value)], session.csrfToken)
    }
}

struct HarnessError: Error { var message: String }

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}

extension ConsoleHarness {
    /// The same desk, clock and sessions with `console` (pages added) serving.
    func replacing(_ console: Console) -> ConsoleHarness {
        ConsoleHarness(desk: desk, clock: clock, console: console)
    }

    private init(desk: RecordingDesk, clock: TestClock, console: Console) {
        self.desk = desk
        self.clock = clock
        self.console = console
    }
}
