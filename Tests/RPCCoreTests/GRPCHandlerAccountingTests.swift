import Dispatch
import HTTPCore
import ProtobufWire
import RPCCore
import Synchronization
import TestSupport
import XCTest

/// One call, one answer, one observation: a call whose deadline passes is answered
/// DEADLINE_EXCEEDED at once, and whatever its handler does afterwards (throw CANCELLED, or
/// finish OK because it ignored cancellation) is neither written nor counted.
final class GRPCHandlerAccountingTests: XCTestCase {
    struct Empty: ProtobufMessage {
        init() {}
        init(protobufBytes: ArraySlice<UInt8>) throws {}
        func encode(to writer: inout ProtobufWriter) {}
    }

    final class RecordingWriter: HTTPResponseWriter {
        let responses = Mutex<[HTTPResponse]>([])
        func respond(_ response: HTTPResponse) { responses.withLock { $0.append(response) } }
        func onCancel(_ handler: @escaping @Sendable () -> Void) {}
        var count: Int { responses.withLock { $0.count } }
    }

    final class Recorder: Sendable {
        let calls = Mutex<[GRPCHandler.CompletedCall]>([])
        var codes: [RPCCode] { calls.withLock { $0.map(\.code) } }
    }

    /// Signals once from any thread; waited on from the test.
    final class Latch: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        func signal() { semaphore.signal() }
        func wait(_ seconds: Double) -> Bool { semaphore.wait(timeout: .now() + seconds) == .success }
    }

    func call(_ path: String, timeout: String) -> HTTPRequest {
        HTTPRequest(version: .http2, method: "POST", path: path,
                    headers: ["content-type": "application/grpc", "grpc-timeout": timeout], body: [0, 0, 0, 0, 0])
    }

    func server(_ router: RPCRouter, _ recorder: Recorder) -> GRPCHandler {
        GRPCHandler(router: router, observer: { call in recorder.calls.withLock { $0.append(call) } })
    }

    func status(_ response: HTTPResponse) -> String? {
        response.trailers?["grpc-status"] ?? response.headers["grpc-status"]
    }

    func testHandlerThatThrowsWhenCancelledIsCountedOnceAsDeadlineExceeded() throws {
        let handlerEnded = Latch()
        var router = RPCRouter()
        router.register("/t.S/Slow") { (_: Empty, _) async throws -> Empty in
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                handlerEnded.signal()
                throw error
            }
            return Empty()
        }
        let recorder = Recorder()
        let writer = RecordingWriter()
        server(router, recorder).handle(call("/t.S/Slow", timeout: "50m"), writer: writer)

        try eventuallyBlocking("an answer") { writer.count > 0 }
        XCTAssertTrue(handlerEnded.wait(10), "the deadline cancels the handler")
        usleep(200_000)  // room for a second answer, were one still to come
        XCTAssertEqual(writer.responses.withLock { $0.compactMap(status) }, ["4"])
        XCTAssertEqual(recorder.codes, [.deadlineExceeded], "the handler's CANCELLED is not a second call")
    }

    func testHandlerThatIgnoresCancellationIsAnsweredAtTheDeadlineAndCountedOnce() throws {
        let release = Latch()
        let handlerEnded = Latch()
        var router = RPCRouter()
        router.register("/t.S/Stubborn") { (_: Empty, _) async throws -> Empty in
            // Blocks a pool thread on purpose: a handler deaf to cancellation.
            _ = release.wait(30)
            handlerEnded.signal()
            return Empty()
        }
        let recorder = Recorder()
        let writer = RecordingWriter()
        server(router, recorder).handle(call("/t.S/Stubborn", timeout: "50m"), writer: writer)

        try eventuallyBlocking("an answer") { writer.count > 0 }
        XCTAssertEqual(writer.responses.withLock { $0.compactMap(status) }, ["4"],
                       "answered at the deadline while the handler still runs")
        release.signal()
        XCTAssertTrue(handlerEnded.wait(10))
        usleep(200_000)
        XCTAssertEqual(writer.count, 1, "the late OK is dropped")
        XCTAssertEqual(recorder.codes, [.deadlineExceeded])
    }

    /// The transport's writer: the first answer wins, and a peer's reset (``reset()``) ends the
    /// call before any answer, as RST_STREAM does.
    final class ResettableWriter: HTTPResponseWriter {
        private struct State {
            var finished = false
            var onCancel: (@Sendable () -> Void)?
            var responses: [HTTPResponse] = []
        }
        private let state = Mutex(State())
        var count: Int { state.withLock { $0.responses.count } }

        func respond(_ response: HTTPResponse) {
            state.withLock { state in
                guard !state.finished else { return }
                state.finished = true
                state.responses.append(response)
            }
        }
        func onCancel(_ handler: @escaping @Sendable () -> Void) { state.withLock { $0.onCancel = handler } }
        func reset() {
            let handler = state.withLock { state in
                state.finished = true
                defer { state.onCancel = nil }
                return state.onCancel
            }
            handler?()
        }
    }

    func slowRouter() -> RPCRouter {
        var router = RPCRouter()
        router.register("/t.S/Slow") { (_: Empty, _) async throws -> Empty in
            try await Task.sleep(for: .seconds(30))
            return Empty()
        }
        return router
    }

    func testResetBeforeTheDeadlineIsCountedOnceAsCancelled() throws {
        let recorder = Recorder()
        let writer = ResettableWriter()
        server(slowRouter(), recorder).handle(call("/t.S/Slow", timeout: "20S"), writer: writer)
        writer.reset()
        try eventuallyBlocking("an observation") { !recorder.codes.isEmpty }
        usleep(100_000)
        XCTAssertEqual(recorder.codes, [.cancelled], "the client gave up before the deadline")
    }

    /// A client resets the stream when its own deadline fires, at or just after ours; under
    /// load the reset can be read before our deadline timer has run. The deadline still ended
    /// the call. (Resetting a burst of calls right after their deadlines, while their timers
    /// queue for the pool, makes some resets win; whichever wins, each call is DEADLINE_EXCEEDED.)
    func testResetAfterTheDeadlineIsCountedOnceAsDeadlineExceeded() throws {
        let recorder = Recorder()
        let handler = server(slowRouter(), recorder)
        for _ in 0..<5 {
            let writers = (0..<20).map { _ in ResettableWriter() }
            for writer in writers { handler.handle(call("/t.S/Slow", timeout: "20m"), writer: writer) }
            // Each deadline is 20 ms after its handle() read the clock, so all have passed by then.
            let pastDeadlines = ContinuousClock.now + .milliseconds(20)
            while ContinuousClock.now < pastDeadlines {}
            for writer in writers { writer.reset() }
        }
        try eventuallyBlocking("100 observations") { recorder.codes.count >= 100 }
        usleep(100_000)  // room for a second observation, were one still to come
        XCTAssertEqual(recorder.codes, Array(repeating: .deadlineExceeded, count: 100))
    }

    func testCallWithinItsDeadlineIsCountedOnceAsOK() throws {
        var router = RPCRouter()
        router.register("/t.S/Fast") { (_: Empty, _) async throws -> Empty in Empty() }
        let recorder = Recorder()
        let writer = RecordingWriter()
        server(router, recorder).handle(call("/t.S/Fast", timeout: "10S"), writer: writer)
        try eventuallyBlocking("an answer") { writer.count > 0 }
        usleep(100_000)
        XCTAssertEqual(writer.responses.withLock { $0.compactMap(status) }, ["0"])
        XCTAssertEqual(recorder.codes, [.ok])
    }
}
