import HTTP2
import HTTPCore
import XCTest

/// ``HTTP2ServerSession`` driven by a real nghttp2 client (``HTTP2TestClient``), bytes pumped
/// in memory: the whole server contract (events, response shapes, limits, flow control,
/// resets, GOAWAY) without a socket.
final class HTTP2ServerSessionTests: XCTestCase {
    typealias Frame = HTTP2TestClient.Frame

    /// A gRPC call's request head: pseudo-headers first, then the call's metadata.
    func grpcHead(_ path: String = "/pkg.Svc/M", metadata: [(String, String)] = []) -> [(String, String)] {
        [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
         ("content-type", "application/grpc"), ("te", "trailers")] + metadata
    }

    /// One gRPC length-prefixed message: flag byte, 4-byte big-endian length, payload.
    func grpcMessage(_ payload: [UInt8]) -> [UInt8] {
        let n = UInt32(payload.count)
        return [0, UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + payload
    }

    func grpcResponse(_ body: [UInt8], status: String = "0") -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["content-type": "application/grpc"], body: body,
                     trailers: ["grpc-status": status])
    }

    /// The requests among `events`, keyed by stream ID.
    func requests(_ events: [HTTP2Event]) -> [Int32: HTTPRequest] {
        var found: [Int32: HTTPRequest] = [:]
        for case .request(let id, let request) in events { found[id] = request }
        return found
    }

    func closedStreams(_ events: [HTTP2Event]) -> [Int32] {
        events.compactMap { if case .streamClosed(let id) = $0 { return id } else { return nil } }
    }

    func testGRPCCallArrivesWholeAndIsAnsweredWithBodyAndTrailers() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let payload = (0..<300).map { UInt8($0 % 256) }
        let id = try client.submitRequest(grpcHead(metadata: [("authorization", "Bearer x")]),
                                          body: grpcMessage(payload))

        let events = try client.exchange(with: server)
        XCTAssertEqual(events.count, 1, "one request, nothing closed yet: \(events)")
        let request = try XCTUnwrap(requests(events)[id])
        XCTAssertEqual(request.version, .http2)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/pkg.Svc/M")
        XCTAssertEqual(request.headers, ["content-type": "application/grpc", "te": "trailers",
                                         "authorization": "Bearer x"],
                       "pseudo-headers excluded, metadata kept in order")
        XCTAssertEqual(request.body, grpcMessage(payload))
        XCTAssertFalse(request.bodyLimitExceeded)
        XCTAssertFalse(request.headerLimitExceeded)

        let answer = grpcMessage(Array("pong".utf8))
        server.submit(streamID: id, response: grpcResponse(answer))
        let after = try client.exchange(with: server)
        XCTAssertEqual(closedStreams(after), [id])
        XCTAssertEqual(server.openStreamCount, 0)

        let stream = try XCTUnwrap(client.streams[id])
        XCTAssertEqual(stream.frames, [Frame(type: .headers, endStream: false), Frame(type: .data, endStream: false),
                                       Frame(type: .headers, endStream: true)])
        XCTAssertEqual(stream.header(":status"), "200")
        XCTAssertEqual(stream.header("content-type"), "application/grpc")
        XCTAssertEqual(stream.body, answer)
        XCTAssertEqual(stream.trailer("grpc-status"), "0")
        XCTAssertEqual(stream.closeErrorCode, 0)
    }

    func testTrailersOnlyResponseIsOneHeadersFrameEndingTheStream() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let id = try client.submitRequest(grpcHead(), body: grpcMessage([]))
        try client.exchange(with: server)

        server.submit(streamID: id, response: HTTPResponse(
            status: 200, headers: ["content-type": "application/grpc", "grpc-status": "12",
                                   "grpc-message": "unimplemented"]))
        let events = try client.exchange(with: server)
        XCTAssertEqual(closedStreams(events), [id])

        let stream = try XCTUnwrap(client.streams[id])
        XCTAssertEqual(stream.frames, [Frame(type: .headers, endStream: true)])
        XCTAssertEqual(stream.header("grpc-status"), "12")
        XCTAssertEqual(stream.header("grpc-message"), "unimplemented")
        XCTAssertNil(stream.trailers)
        XCTAssertTrue(stream.body.isEmpty)
    }

    func testBodyOverLimitIsDroppedAndFlaggedAndBodyAtLimitIsKept() throws {
        let limit = 20_000
        let server = try HTTP2ServerSession(limits: HTTP2Limits(maxRequestBodySize: limit))
        let client = try HTTP2TestClient()
        // Both span several DATA frames (16 KiB each), so the limit is checked across chunks.
        let atLimit = try client.submitRequest(grpcHead(), body: Array(repeating: 7, count: limit))
        let overLimit = try client.submitRequest(grpcHead(), body: Array(repeating: 9, count: limit + 1))

        let arrived = requests(try client.exchange(with: server))
        let kept = try XCTUnwrap(arrived[atLimit])
        XCTAssertFalse(kept.bodyLimitExceeded)
        XCTAssertEqual(kept.body, Array(repeating: 7, count: limit))
        let dropped = try XCTUnwrap(arrived[overLimit])
        XCTAssertTrue(dropped.bodyLimitExceeded)
        XCTAssertEqual(dropped.body, [], "dropped, not truncated: memory stays bounded")
        XCTAssertEqual(dropped.path, "/pkg.Svc/M", "the head survives so the service can answer")
    }

    func testHeaderListOverLimitIsFlagged() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits(maxHeaderListSize: 1024))
        let client = try HTTP2TestClient()
        try client.exchange(with: server)
        let padding = (0..<20).map { ("x-pad-\($0)", String(repeating: "v", count: 100)) }
        let big = try client.submitRequest(grpcHead(metadata: padding), body: grpcMessage([]))
        let small = try client.submitRequest(grpcHead(metadata: [("x-pad", "v")]), body: grpcMessage([]))

        let arrived = requests(try client.exchange(with: server))
        let flagged = try XCTUnwrap(arrived[big])
        XCTAssertTrue(flagged.headerLimitExceeded)
        XCTAssertLessThan(flagged.headers.count, 2 + padding.count, "fields past the limit are not kept")
        XCTAssertEqual(flagged.path, "/pkg.Svc/M")
        let fine = try XCTUnwrap(arrived[small])
        XCTAssertFalse(fine.headerLimitExceeded, "the limit is per request, not per connection")
        XCTAssertEqual(fine.headers["x-pad"], "v")
    }

    func testManyConcurrentStreamsAnsweredInReverseOrder() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        var ids: [Int32] = []
        for i in 0..<100 {
            ids.append(try client.submitRequest(grpcHead("/pkg.Svc/M\(i)"), body: Array("req-\(i)".utf8)))
        }
        let arrived = requests(try client.exchange(with: server))
        XCTAssertEqual(Set(arrived.keys), Set(ids))

        for id in ids.reversed() {
            let request = try XCTUnwrap(arrived[id])
            server.submit(streamID: id, response: grpcResponse(Array("resp-".utf8) + request.body))
        }
        let events = try client.exchange(with: server)
        XCTAssertEqual(Set(closedStreams(events)), Set(ids))
        XCTAssertEqual(server.openStreamCount, 0)
        for (i, id) in ids.enumerated() {
            let stream = try XCTUnwrap(client.streams[id])
            XCTAssertEqual(String(decoding: stream.body, as: UTF8.self), "resp-req-\(i)")
            XCTAssertEqual(stream.trailer("grpc-status"), "0")
        }
    }

    func testLargeResponseFlowsThroughWindowUpdates() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let id = try client.submitRequest(grpcHead(), body: grpcMessage([]))
        try client.exchange(with: server)

        let body = (0..<(1 << 20)).map { UInt8($0 % 251) }
        server.submit(streamID: id, response: grpcResponse(body))
        var firstFlight: [UInt8] = []
        try server.send(into: &firstFlight)
        XCTAssertLessThan(firstFlight.count, 100_000, "the client's 64 KiB window holds the rest back")
        XCTAssertEqual(server.openStreamCount, 1, "the rest of the body is still pending")
        try client.receive(firstFlight)

        try client.exchange(with: server)
        let stream = try XCTUnwrap(client.streams[id])
        XCTAssertEqual(stream.body.count, body.count)
        XCTAssertTrue(stream.body == body)
        XCTAssertEqual(stream.trailer("grpc-status"), "0")
        XCTAssertEqual(server.openStreamCount, 0)
    }

    func testClientResetClosesTheStreamAndLaterAnswerIsIgnored() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let id = try client.submitRequest(grpcHead(), body: grpcMessage([1, 2, 3]))
        XCTAssertNotNil(requests(try client.exchange(with: server))[id])

        client.resetStream(id)
        XCTAssertEqual(closedStreams(try client.exchange(with: server)), [id])

        server.submit(streamID: id, response: grpcResponse(grpcMessage([4])))
        XCTAssertEqual(server.openStreamCount, 0, "nothing is kept for a closed stream")
        var output: [UInt8] = []
        try server.send(into: &output)
        XCTAssertEqual(output, [], "no frame goes out for a closed stream")
        XCTAssertEqual(client.streams[id]?.frames.contains { $0.type == .headers }, false)

        // The connection is unharmed: the next call works.
        let next = try client.submitRequest(grpcHead(), body: grpcMessage([]))
        try client.exchange(with: server)
        server.submit(streamID: next, response: grpcResponse(grpcMessage([5])))
        try client.exchange(with: server)
        XCTAssertEqual(client.streams[next]?.trailer("grpc-status"), "0")
    }

    func testResetBeforeTheRequestEndsReportsOnlyClosed() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let id = try client.submitRequest(grpcHead(), endStream: false)
        XCTAssertEqual(try client.exchange(with: server).count, 0, "no request before END_STREAM")
        XCTAssertEqual(server.openStreamCount, 1)

        client.resetStream(id)
        let events = try client.exchange(with: server)
        XCTAssertEqual(closedStreams(events), [id])
        XCTAssertTrue(requests(events).isEmpty)
        XCTAssertEqual(server.openStreamCount, 0)
    }

    func testGarbagePrefaceThrowsAndEndsTheSession() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let garbage = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        XCTAssertThrowsError(try garbage.withUnsafeBytes { try server.receive($0) })
        XCTAssertTrue(server.takeEvents().isEmpty)

        var output: [UInt8] = []
        try server.send(into: &output)
        let goAwayQueued = HTTP2TestClient.frameTypes(in: output).contains(.goAway)
        XCTAssertTrue(!server.isActive || goAwayQueued, "the caller must be told to close")
        XCTAssertFalse(server.isActive, "nothing more to do once the GOAWAY is flushed")
    }

    func testTruncatedFrameWaitsForTheRest() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        try client.exchange(with: server)
        let id = try client.submitRequest(grpcHead(), body: grpcMessage([42]))
        let bytes = try client.send()

        let cut = bytes.count / 2
        try bytes[..<cut].withUnsafeBytes { try server.receive($0) }
        XCTAssertTrue(server.takeEvents().isEmpty, "half a frame is not an event")
        XCTAssertTrue(server.isActive)
        try bytes[cut...].withUnsafeBytes { try server.receive($0) }
        XCTAssertEqual(requests(server.takeEvents())[id]?.body, grpcMessage([42]))
    }

    func testGoAwayReachesClientAndInFlightStreamIsStillAnswered() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let id = try client.submitRequest(grpcHead(), body: grpcMessage([]))
        try client.exchange(with: server)

        server.sendGoAway()
        XCTAssertTrue(server.goAwaySent)
        try client.exchange(with: server)
        let goAway = try XCTUnwrap(client.goAway)
        XCTAssertEqual(goAway.lastStreamID, id, "the in-flight call is covered")
        XCTAssertEqual(goAway.errorCode, 0)
        XCTAssertTrue(server.isActive, "a stream is still waiting for its answer")

        server.submit(streamID: id, response: grpcResponse(grpcMessage([1])))
        try client.exchange(with: server)
        XCTAssertEqual(client.streams[id]?.body, grpcMessage([1]))
        XCTAssertEqual(client.streams[id]?.trailer("grpc-status"), "0")
        XCTAssertFalse(server.isActive, "GOAWAY sent and no streams left: close the socket")
    }

    func testSettingsAdvertiseTheLimits() throws {
        let limits = HTTP2Limits(maxConcurrentStreams: 7, maxHeaderListSize: 9000, initialWindowSize: 300_000)
        let server = try HTTP2ServerSession(limits: limits)
        let client = try HTTP2TestClient()
        XCTAssertNotEqual(client.remoteMaxConcurrentStreams, 7, "precondition: nghttp2's default differs")
        try client.exchange(with: server)
        XCTAssertEqual(client.remoteMaxConcurrentStreams, 7)
        XCTAssertEqual(client.remoteMaxHeaderListSize, 9000)
        XCTAssertEqual(client.remoteInitialWindowSize, 300_000)
    }
}
