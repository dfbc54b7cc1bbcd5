import HTTP2
import HTTPCore
@testable import RPCClient
import RPCCore
import XCTest

/// A server-streaming response fed to its state machine directly: messages as they complete,
/// and the same framing failures a unary call reports.
final class StreamingCallStateTests: XCTestCase {
    let grpcHead: HTTPHeaders = ["content-type": "application/grpc"]

    func testMessagesArriveAsTheyCompleteThenOKEndsTheCall() throws {
        var state = StreamingCallState(streamID: 3, maxMessageSize: 1024)
        guard case .opened = state.handle(.response(streamID: 3, status: 200, headers: grpcHead, endStream: false))
        else { return XCTFail("a gRPC head opens the stream") }
        let framed = GRPCFraming.frame([1, 2]) + GRPCFraming.frame([3])
        guard case .none = state.handle(.data(streamID: 3, Array(framed[0..<4]))) else {
            return XCTFail("no whole message yet")
        }
        guard case .messages(let messages) = state.handle(.data(streamID: 3, Array(framed[4...]))) else {
            return XCTFail("both messages are whole")
        }
        XCTAssertEqual(messages, [[1, 2], [3]])
        guard case .complete(nil) = state.handle(.trailers(streamID: 3, ["grpc-status": "0"])) else {
            return XCTFail("OK ends the call without an error")
        }
    }

    func testAMessageOverTheLimitEndsTheCall() throws {
        var state = StreamingCallState(streamID: 1, maxMessageSize: 2)
        _ = state.handle(.response(streamID: 1, status: 200, headers: grpcHead, endStream: false))
        guard case .complete(let error?) = state.handle(.data(streamID: 1, GRPCFraming.frame([1, 2, 3]))) else {
            return XCTFail("a message over the limit ends the call")
        }
        XCTAssertEqual(error.code, .resourceExhausted)
        guard case .none = state.handle(.trailers(streamID: 1, ["grpc-status": "0"])) else {
            return XCTFail("an ended call ignores what follows")
        }
    }

    func testTrailersInsideAMessageAreInternal() throws {
        var state = StreamingCallState(streamID: 1, maxMessageSize: 1024)
        _ = state.handle(.response(streamID: 1, status: 200, headers: grpcHead, endStream: false))
        _ = state.handle(.data(streamID: 1, Array(GRPCFraming.frame([1, 2, 3]).prefix(6))))
        guard case .complete(let error?) = state.handle(.trailers(streamID: 1, ["grpc-status": "0"])) else {
            return XCTFail("a cut-off message fails the call")
        }
        XCTAssertEqual(error.code, .internal)
        XCTAssertEqual(error.message, "the response ended inside a message")
    }
}
