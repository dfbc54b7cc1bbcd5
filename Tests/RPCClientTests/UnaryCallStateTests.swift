import HTTP2
import HTTPCore
@testable import RPCClient
import RPCCore
import XCTest

/// Response shapes the test server never sends, fed to the state machine directly.
final class UnaryCallStateTests: XCTestCase {
    let grpcHead: HTTPHeaders = ["content-type": "application/grpc"]

    func testTrailersOnlyCarriesTheStatus() throws {
        var state = UnaryCallState(streamID: 1, maxMessageSize: 1024)
        let head: HTTPHeaders = ["content-type": "application/grpc", "grpc-status": "16",
                                 "grpc-message": "no %E2%9C%93 token"]
        let error = try failure(state.handle(.response(streamID: 1, status: 200, headers: head, endStream: true)))
        XCTAssertEqual(error.kind, .status)
        XCTAssertEqual(error.code, .unauthenticated)
        XCTAssertEqual(error.message, "no ✓ token")
        guard case .none = state.handle(.streamClosed(streamID: 1, errorCode: 0)) else {
            return XCTFail("a decided call ignores what follows")
        }
    }

    func testMessageSplitAcrossDataFramesThenOKTrailers() throws {
        var state = UnaryCallState(streamID: 3, maxMessageSize: 1024)
        let framed = GRPCFraming.frame([1, 2, 3, 4])
        for event: HTTP2ClientEvent in [
            .response(streamID: 3, status: 200, headers: grpcHead, endStream: false),
            .data(streamID: 1, [9, 9]),
            .data(streamID: 3, Array(framed[0..<2])),
            .data(streamID: 3, Array(framed[2...])),
        ] {
            guard case .none = state.handle(event) else { return XCTFail("decided too early at \(event)") }
        }
        guard case .complete(.message(let bytes)) = state.handle(.trailers(streamID: 3, ["grpc-status": "0"])) else {
            return XCTFail("expected the message")
        }
        XCTAssertEqual(bytes, [1, 2, 3, 4])
    }

    func testOKWithoutAMessageIsInternal() throws {
        var state = UnaryCallState(streamID: 1, maxMessageSize: 1024)
        _ = state.handle(.response(streamID: 1, status: 200, headers: grpcHead, endStream: false))
        XCTAssertEqual(try failure(state.handle(.trailers(streamID: 1, ["grpc-status": "0"]))).code, .internal)
    }

    func testNonGRPCAnswersMapTheHTTPStatus() throws {
        for (status, code) in [
            (404, RPCCode.unimplemented), (503, .unavailable), (401, .unauthenticated), (500, .unknown),
        ] {
            var state = UnaryCallState(streamID: 1, maxMessageSize: 1024)
            let head: HTTPHeaders = ["content-type": "text/html"]
            let error = try failure(
                state.handle(.response(streamID: 1, status: status, headers: head, endStream: false)))
            XCTAssertEqual(error.code, code, "HTTP \(status)")
            XCTAssertEqual(error.kind, .transport)
        }
        var state = UnaryCallState(streamID: 1, maxMessageSize: 1024)
        let error = try failure(
            state.handle(
                .response(
                    streamID: 1, status: 200, headers: ["content-type": "text/plain"],
                    endStream: false)))
        XCTAssertEqual(error.code, .internal)
    }

    func testResetsMapToGRPCCodesAndRefusedIsRetryable() throws {
        var cancelled = UnaryCallState(streamID: 5, maxMessageSize: 1024)
        XCTAssertEqual(try failure(cancelled.handle(.streamClosed(streamID: 5, errorCode: HTTP2ErrorCode.cancel))).code,
                       .cancelled)
        var calm = UnaryCallState(streamID: 5, maxMessageSize: 1024)
        XCTAssertEqual(
            try failure(calm.handle(.streamClosed(streamID: 5, errorCode: HTTP2ErrorCode.enhanceYourCalm))).code,
            .resourceExhausted)
        var clean = UnaryCallState(streamID: 5, maxMessageSize: 1024)
        XCTAssertEqual(try failure(clean.handle(.streamClosed(streamID: 5, errorCode: 0))).code, .internal)
        var refused = UnaryCallState(streamID: 5, maxMessageSize: 1024)
        guard
            case .complete(.refused) = refused.handle(
                .streamClosed(streamID: 5, errorCode: HTTP2ErrorCode.refusedStream))
        else {
            return XCTFail("REFUSED_STREAM is safe to retry")
        }
    }

    func testTimeoutHeaderUsesTheFinestUnitThatFits() {
        XCTAssertEqual(GRPCTimeout.header(for: .milliseconds(200)), "200000u")
        XCTAssertEqual(GRPCTimeout.header(for: .milliseconds(50)), "50000000n")
        XCTAssertEqual(GRPCTimeout.header(for: .seconds(30)), "30000000u")
        XCTAssertEqual(GRPCTimeout.header(for: .seconds(3600)), "3600000m")
        XCTAssertEqual(GRPCTimeout.header(for: .zero), "1n")
        for duration: Duration in [.nanoseconds(1), .milliseconds(200), .seconds(30), .seconds(86_400 * 400)] {
            let header = GRPCTimeout.header(for: duration)
            let parsed = GRPCTimeout.nanoseconds(header)
            XCTAssertNotNil(parsed, header)
            XCTAssertGreaterThanOrEqual(Duration.nanoseconds(parsed ?? 0), duration, header)
        }
    }

    func testServerAddressParsing() {
        let v4 = ServerAddress(parsing: "127.0.0.1:50051")
        XCTAssertEqual(v4?.host, "127.0.0.1")
        XCTAssertEqual(v4?.port, 50051)
        // getaddrinfo wants the bare IPv6 address; the :authority form puts the brackets back.
        let v6 = ServerAddress(parsing: "[::1]:80")
        XCTAssertEqual(v6?.host, "::1")
        XCTAssertEqual(v6?.port, 80)
        XCTAssertEqual(v6?.description, "[::1]:80")
        for bad in ["localhost", "host:", ":80", "host:0", "host:70000", "::1:80", "host:http"] {
            XCTAssertNil(ServerAddress(parsing: bad), bad)
        }
    }

    private func failure(_ action: UnaryCallState.Action, file: StaticString = #filePath,
                         line: UInt = #line) throws -> RPCClientError {
        guard case .complete(.failure(let error)) = action else {
            XCTFail("expected a failure, got \(action)", file: file, line: line)
            throw RPCClientError(.transport, .unknown, "no failure")
        }
        return error
    }
}
