import Dispatch
import HTTPCore
import ProtobufWire
import RPCCore
import Synchronization
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

    /// Waits (generously: a loaded machine) until `condition` holds.
    func waitUntil(_ condition: () -> Bool) {
        let end = ContinuousClock.now + .seconds(10)
        while !condition() && ContinuousClock.now < end { usleep(1_000) }
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

        waitUntil { writer.count > 0 }
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

        waitUntil { writer.count > 0 }
        XCTAssertEqual(writer.responses.withLock { $0.compactMap(status) }, ["4"],
                       "answered at the deadline while the handler still runs")
        release.signal()
        XCTAssertTrue(handlerEnded.wait(10))
        usleep(200_000)
        XCTAssertEqual(writer.count, 1, "the late OK is dropped")
        XCTAssertEqual(recorder.codes, [.deadlineExceeded])
    }

    func testCallWithinItsDeadlineIsCountedOnceAsOK() throws {
        var router = RPCRouter()
        router.register("/t.S/Fast") { (_: Empty, _) async throws -> Empty in Empty() }
        let recorder = Recorder()
        let writer = RecordingWriter()
        server(router, recorder).handle(call("/t.S/Fast", timeout: "10S"), writer: writer)
        waitUntil { writer.count > 0 }
        usleep(100_000)
        XCTAssertEqual(writer.responses.withLock { $0.compactMap(status) }, ["0"])
        XCTAssertEqual(recorder.codes, [.ok])
    }
}
