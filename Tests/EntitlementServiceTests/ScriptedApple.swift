import AppStore
import EntitlementService
import Entitlements
import Foundation
import Synchronization

/// Apple's verifyReceipt as a script: each call takes the next answer, and every call is
/// recorded (which endpoint, what body), so a test sees exactly what the verifier sent.
///
/// A real implementation of the verifier's ``AppleHTTPClient`` port, not a mock: no sockets,
/// answers in microseconds. A call can be held until the test releases it, which is how the
/// single-flight tests keep one verification open while other callers arrive.
final class ScriptedApple: AppleHTTPClient {
    /// One answer to one POST.
    enum Answer: Sendable {
        /// HTTP 200 with this verifyReceipt body.
        case verifyReceipt(VerifyReceiptResponse)
        /// HTTP 200 with Apple's error shape: only `status` (and `is-retryable` when set).
        case status(Int, isRetryable: Bool? = nil)
        /// Another HTTP status (e.g. 503 from Apple's front end).
        case http(Int)
        /// The connection failed (reset, timeout, DNS).
        case transportError
    }

    /// One recorded call.
    struct Call: Sendable, Equatable {
        var url: URL
        var body: [UInt8]
    }

    struct TransportError: Error, CustomStringConvertible {
        var description: String { "connection reset by scripted Apple" }
    }

    private struct State {
        var script: [Answer]
        var calls: [Call] = []
        var held: [CheckedContinuation<Void, Never>] = []
        var holding = false
    }

    static let production = URL(string: "https://buy.itunes.apple.test/verifyReceipt")!
    static let sandbox = URL(string: "https://sandbox.itunes.apple.test/verifyReceipt")!

    private let state: Mutex<State>

    /// `script` answers the calls in order; a call beyond it fails the test's expectations
    /// (answered with a transport error, which the verifier retries, so counts show it).
    init(_ script: [Answer]) {
        state = Mutex(State(script: script))
    }

    var calls: [Call] { state.withLock { $0.calls } }

    /// The endpoints called, in order: `.production` or `.sandbox`.
    var environments: [Environment] {
        calls.map { $0.url == Self.sandbox ? .sandbox : .production }
    }

    /// Holds every call from now on until ``release()``.
    func hold() { state.withLock { $0.holding = true } }

    /// Calls waiting in ``hold()`` now.
    var heldCalls: Int { state.withLock { $0.held.count } }

    func release() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held.removeAll() }
            return state.held
        }
        for call in held { call.resume() }
    }

    func post(_ url: URL, body: [UInt8], timeout: Duration) async throws -> (status: Int, body: [UInt8]) {
        await withCheckedContinuation { continuation in
            let wait = state.withLock { state -> Bool in
                guard state.holding else { return false }
                state.held.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
        let answer = state.withLock { state -> Answer in
            state.calls.append(Call(url: url, body: body))
            return state.script.isEmpty ? .transportError : state.script.removeFirst()
        }
        switch answer {
        case let .verifyReceipt(response): return (200, response.jsonBody())
        case let .status(status, isRetryable):
            return (200, VerifyReceiptResponse(status: status, isRetryable: isRetryable).jsonBody())
        case let .http(status): return (status, Array("upstream failure".utf8))
        case .transportError: throw TransportError()
        }
    }
}
