import HTTPCore
import ProtobufWire
import RPCCore
import Synchronization
import TestSupport
import XCTest

/// Server-streaming calls through ``GRPCHandler``: messages then OK trailers, trailers-only when
/// the handler fails before sending, ``RPCServerStream/end(with:)`` writing its status at once,
/// and exactly one observation per call.
final class ServerStreamingTests: XCTestCase {
    struct Number: ProtobufMessage {
        var value: Int64 = 0
        init() {}
        init(_ value: Int64) { self.value = value }
        init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                if field.number == 1 { value = try reader.readInt64() } else { try reader.skip(field) }
            }
        }
        func encode(to writer: inout ProtobufWriter) { writer.writeInt64(value, field: 1) }
    }

    /// The transport side of one call: a writer that can stream, recording what it was given.
    final class Recorder: HTTPResponseWriter, HTTPResponseStream {
        struct State {
            var started = false
            var body: [UInt8] = []
            var trailers: HTTPHeaders?
            var whole: HTTPResponse?
            var aborted = false
        }
        let state = Mutex(State())
        func respond(_ response: HTTPResponse) { state.withLock { $0.whole = response } }
        func onCancel(_ handler: @escaping @Sendable () -> Void) {}
        func startStream(status: Int, headers: HTTPHeaders) -> (any HTTPResponseStream)? {
            state.withLock { $0.started = true }
            return self
        }
        func write(_ bytes: [UInt8], limit: Int) -> HTTPStreamWrite {
            state.withLock { state in
                state.body += bytes
                return .queued(buffered: 0)
            }
        }
        var bufferedBytes: Int { 0 }
        func whenBuffered(atMost threshold: Int, _ handler: @escaping @Sendable () -> Void) { handler() }
        func finish(trailers: HTTPHeaders) { state.withLock { $0.trailers = trailers } }
        func abort(trailers: HTTPHeaders) { state.withLock { $0.trailers = trailers; $0.aborted = true } }
        var ended: Bool { state.withLock { $0.trailers != nil || $0.whole != nil } }
    }

    final class Codes: Sendable {
        let seen = Mutex<[RPCCode]>([])
    }

    func handler(_ codes: Codes, _ body: @escaping @Sendable (Number, RPCServerStream<Number>) async throws -> Void)
        -> GRPCHandler {
        var router = RPCRouter()
        router.registerServerStreaming("/t.S/Count") {
            (request: Number, _: RPCContext, stream: RPCServerStream<Number>) in
            try await body(request, stream)
        }
        return GRPCHandler(router: router, observer: { call in codes.seen.withLock { $0.append(call.code) } })
    }

    func call(_ grpc: GRPCHandler, _ recorder: Recorder) {
        let message = Number(3).protobufBytes()
        grpc.handle(HTTPRequest(version: .http2, method: "POST", path: "/t.S/Count",
                                headers: ["content-type": "application/grpc"],
                                body: [0, 0, 0, 0, UInt8(message.count)] + message), writer: recorder)
    }

    func testMessagesThenOKTrailers() async throws {
        let codes = Codes()
        let grpc = handler(codes) { request, stream in
            for i in 1...request.value { try stream.send(Number(i)) }
        }
        let recorder = Recorder()
        call(grpc, recorder)
        try await eventually("the stream ended") { recorder.ended }
        let expected = (1...3).flatMap { RPCResponseBody(Number($0)).framed }
        XCTAssertEqual(recorder.state.withLock { $0.body }, expected)
        XCTAssertEqual(recorder.state.withLock { $0.trailers }, ["grpc-status": "0"])
        XCTAssertFalse(recorder.state.withLock { $0.aborted })
        XCTAssertEqual(codes.seen.withLock { $0 }, [.ok])
    }

    func testFailureBeforeAnyMessageIsTrailersOnly() async throws {
        let codes = Codes()
        let grpc = handler(codes) { _, _ in throw RPCError(.outOfRange, "too old") }
        let recorder = Recorder()
        call(grpc, recorder)
        try await eventually("the stream ended") { recorder.ended }
        XCTAssertFalse(recorder.state.withLock { $0.started }, "no headers before the status")
        let whole = try XCTUnwrap(recorder.state.withLock { $0.whole })
        XCTAssertEqual(whole.headers["grpc-status"], "11")
        XCTAssertEqual(whole.headers["grpc-message"], "too old")
        XCTAssertEqual(codes.seen.withLock { $0 }, [.outOfRange])
    }

    func testEndFromOutsideWritesItsStatusAtOnceAndCancelsTheHandler() async throws {
        let codes = Codes()
        let cancelled = Mutex(false)
        let streams = Mutex<[RPCServerStream<Number>]>([])
        let grpc = handler(codes) { _, stream in
            try stream.sendHeaders()
            streams.withLock { $0.append(stream) }
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.withLock { $0 = true }
                throw RPCError(.internal, "the handler's own error, dropped")
            }
        }
        let recorder = Recorder()
        call(grpc, recorder)
        try await eventually("a stream opened") { streams.withLock { !$0.isEmpty } }
        streams.withLock { $0[0] }.end(with: RPCError(.unavailable, "going away"))
        XCTAssertEqual(recorder.state.withLock { $0.trailers }?["grpc-status"], "14", "written before returning")
        XCTAssertTrue(recorder.state.withLock { $0.aborted })
        try await eventually("the handler cancelled") { cancelled.withLock { $0 } }
        try await Task.sleep(for: .milliseconds(20))
        XCTAssertEqual(codes.seen.withLock { $0 }, [.unavailable], "one observation, the recorded status")
        XCTAssertThrowsError(try streams.withLock { $0[0] }.send(Number(1)), "nothing more after the end")
    }
}
