import HTTP2
import HTTPCore
import XCTest

/// Streamed responses through ``HTTP2ServerSession``: the body grows while the stream is open,
/// the data provider defers and resumes, flow control holds back what the client has not made
/// room for, and an abort reaches a client whose window is shut.
final class HTTP2StreamingResponseTests: XCTestCase {
    let head: [(String, String)] = [
        (":method", "POST"), (":scheme", "http"), (":path", "/pkg.Svc/Watch"), (":authority", "localhost"),
        ("content-type", "application/grpc"), ("te", "trailers"),
    ]

    func open() throws -> (HTTP2ServerSession, HTTP2TestClient, Int32) {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let id = try client.submitRequest(head, body: [0, 0, 0, 0, 0])
        try client.exchange(with: server)
        XCTAssertTrue(server.submitStreamHead(streamID: id, status: 200, headers: ["content-type": "application/grpc"]))
        return (server, client, id)
    }

    func drainedTotal(_ server: HTTP2ServerSession, _ id: Int32) -> Int {
        server.takeDrained().filter { $0.streamID == id }.reduce(0) { $0 + $1.bytes }
    }

    func testBodyArrivesAsWrittenAcrossQuietPeriodsThenTrailers() throws {
        let (server, client, id) = try open()
        try client.exchange(with: server)
        XCTAssertEqual(client.stream(id).header(":status"), "200", "the head goes out before any message")
        XCTAssertEqual(server.openStreamedResponses, 1)

        var expected: [UInt8] = []
        for round in 0..<5 {
            let chunk = [UInt8](repeating: UInt8(round), count: 1000 * (round + 1))
            expected += chunk
            server.appendStream(streamID: id, bytes: chunk)
            try client.exchange(with: server)
            XCTAssertEqual(client.stream(id).body, expected, "round \(round) delivered while the stream stays open")
            XCTAssertEqual(drainedTotal(server, id), chunk.count, "the provider reports what it took")
        }
        XCTAssertNil(client.stream(id).trailers)
        server.finishStream(streamID: id, trailers: ["grpc-status": "0"])
        let events = try client.exchange(with: server)
        XCTAssertTrue(events.contains { if case .streamClosed(id) = $0 { true } else { false } })
        XCTAssertEqual(client.stream(id).trailer("grpc-status"), "0")
        XCTAssertEqual(client.stream(id).closeErrorCode, 0)
        XCTAssertEqual(server.openStreamedResponses, 0)
        XCTAssertEqual(server.openStreamCount, 0)
    }

    func testFlowControlHoldsBackWhatTheClientHasNoRoomFor() throws {
        let (server, client, id) = try open()
        try client.exchange(with: server)
        // The client never reads from here on: the server may send only its 64 KiB window.
        server.appendStream(streamID: id, bytes: [UInt8](repeating: 7, count: 200_000))
        var wire: [UInt8] = []
        for _ in 0..<5 { try server.send(into: &wire) }
        XCTAssertEqual(drainedTotal(server, id), 65_535, "exactly the client's initial stream window")

        server.abortStream(streamID: id, trailers: ["grpc-status": "8", "grpc-message": "too slow"])
        try server.send(into: &wire)
        XCTAssertEqual(server.openStreamedResponses, 0)
        try client.receive(wire)
        let stream = client.stream(id)
        XCTAssertEqual(stream.body.count, 65_535)
        XCTAssertEqual(stream.trailer("grpc-status"), "8", "trailers are not flow-controlled: they reach a shut window")
        XCTAssertEqual(stream.trailer("grpc-message"), "too slow")
        XCTAssertEqual(stream.frames.last, HTTP2TestClient.Frame(type: .headers, endStream: true))
        XCTAssertEqual(stream.closeErrorCode, 0)
    }

    func testFinishSendsEverythingQueuedBeforeTheTrailers() throws {
        let (server, client, id) = try open()
        let body = (0..<150_000).map { UInt8($0 % 251) }
        server.appendStream(streamID: id, bytes: body)
        server.finishStream(streamID: id, trailers: ["grpc-status": "0"])
        try client.exchange(with: server)
        XCTAssertEqual(client.stream(id).body, body, "window updates let the whole body through, in order")
        XCTAssertEqual(client.stream(id).trailer("grpc-status"), "0")
    }

    func testClientResetEndsTheStreamedResponse() throws {
        let (server, client, id) = try open()
        try client.exchange(with: server)
        client.resetStream(id)
        let events = try client.exchange(with: server)
        XCTAssertTrue(events.contains { if case .streamClosed(id) = $0 { true } else { false } })
        XCTAssertEqual(server.openStreamedResponses, 0)
        server.appendStream(streamID: id, bytes: [1, 2, 3])  // ignored, not kept
        server.finishStream(streamID: id, trailers: ["grpc-status": "0"])
        XCTAssertEqual(server.openStreamCount, 0)
    }

    func testHeadOnAStreamTheClientResetIsRefused() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let id = try client.submitRequest(head, body: [0, 0, 0, 0, 0])
        try client.exchange(with: server)
        client.resetStream(id)
        try client.exchange(with: server)
        XCTAssertFalse(server.submitStreamHead(streamID: id, status: 200, headers: [:]))
        XCTAssertEqual(server.openStreamedResponses, 0)
    }
}
