import HTTP2
import HTTPCore
import XCTest

/// ``HTTP2ClientSession`` against the project's ``HTTP2ServerSession``, bytes passed by hand:
/// the client's events for each response shape, with no sockets.
final class HTTP2ClientSessionTests: XCTestCase {
    struct Pair {
        let client: HTTP2ClientSession
        let server: HTTP2ServerSession

        /// Moves bytes both ways until both are quiet; returns (client events, server events).
        func exchange() throws -> ([HTTP2ClientEvent], [HTTP2Event]) {
            var clientEvents: [HTTP2ClientEvent] = []
            var serverEvents: [HTTP2Event] = []
            for _ in 0..<1000 {
                var toServer: [UInt8] = []
                try client.send(into: &toServer)
                if !toServer.isEmpty { try toServer.withUnsafeBytes { try server.receive($0) } }
                serverEvents += server.takeEvents()
                var toClient: [UInt8] = []
                try server.send(into: &toClient)
                if !toClient.isEmpty { try toClient.withUnsafeBytes { try client.receive($0) } }
                clientEvents += client.takeEvents()
                if toServer.isEmpty && toClient.isEmpty { return (clientEvents, serverEvents) }
            }
            XCTFail("the exchange never went quiet")
            return (clientEvents, serverEvents)
        }
    }

    func makePair() throws -> Pair {
        Pair(client: try HTTP2ClientSession(), server: try HTTP2ServerSession(limits: HTTP2Limits()))
    }

    func testRequestThenResponseWithBodyAndTrailers() throws {
        let pair = try makePair()
        let id = try pair.client.submitRequest(method: "POST", authority: "test", path: "/a/b",
                                               headers: ["content-type": "application/grpc"], body: [1, 2, 3])
        let (_, serverEvents) = try pair.exchange()
        guard case .request(let serverID, let request)? = serverEvents.first else { return XCTFail("\(serverEvents)") }
        XCTAssertEqual(request.path, "/a/b")
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.body, [1, 2, 3])
        pair.server.submit(streamID: serverID, response: HTTPResponse(
            status: 200, headers: ["content-type": "application/grpc"], body: [4, 5], trailers: ["grpc-status": "0"]))
        let (events, _) = try pair.exchange()
        XCTAssertEqual(events.count, 4, "\(events)")
        guard case .response(id, 200, let headers, false) = events[0] else { return XCTFail("\(events[0])") }
        XCTAssertEqual(headers["content-type"], "application/grpc")
        guard case .data(id, [4, 5]) = events[1] else { return XCTFail("\(events[1])") }
        guard case .trailers(id, let trailers) = events[2] else { return XCTFail("\(events[2])") }
        XCTAssertEqual(trailers["grpc-status"], "0")
        guard case .streamClosed(id, 0) = events[3] else { return XCTFail("\(events[3])") }
        XCTAssertEqual(pair.client.openStreamCount, 0)
    }

    /// A head laid out once serves many requests: each arrives with the head's fields and its own
    /// body, and answers given out of order reach their own streams (the session's one-entry
    /// stream lookup must not hand one stream's events or body to another).
    func testPreparedHeadSendsTheSameFieldsForEveryRequest() throws {
        let pair = try makePair()
        let head = HTTP2RequestHead(method: "POST", authority: "test", path: "/a/b",
                                    headers: ["content-type": "application/grpc", "te": "trailers"])
        let bodies: [[UInt8]] = [[1], [2, 2], Array(repeating: 3, count: 70_000)]
        let ids = try bodies.map { try pair.client.submitRequest(head, body: $0) }
        let (_, serverEvents) = try pair.exchange()
        var serverIDs: [Int32] = []
        for event in serverEvents {
            guard case .request(let serverID, let request) = event else { continue }
            XCTAssertEqual(request.method, "POST")
            XCTAssertEqual(request.path, "/a/b")
            XCTAssertEqual(request.headers["content-type"], "application/grpc")
            XCTAssertEqual(request.headers["te"], "trailers")
            XCTAssertEqual(request.body, bodies[serverIDs.count])
            serverIDs.append(serverID)
        }
        XCTAssertEqual(serverIDs.count, 3, "\(serverEvents)")
        for (index, serverID) in serverIDs.enumerated().reversed() {
            pair.server.submit(streamID: serverID, response: HTTPResponse(
                status: 200, headers: [:], body: [UInt8(index)], trailers: ["grpc-status": "\(index)"]))
        }
        let (events, _) = try pair.exchange()
        for (index, id) in ids.enumerated() {
            XCTAssertTrue(events.contains { if case .data(id, [UInt8(index)]) = $0 { true } else { false } },
                          "\(events)")
            XCTAssertTrue(events.contains {
                if case .trailers(id, let trailers) = $0 { trailers["grpc-status"] == "\(index)" } else { false }
            }, "\(events)")
        }
        XCTAssertEqual(pair.client.openStreamCount, 0)
    }

    func testHeadersOnlyResponseEndsTheStream() throws {
        let pair = try makePair()
        let id = try pair.client.submitRequest(method: "POST", authority: "test", path: "/x", headers: [:], body: [0])
        let (_, serverEvents) = try pair.exchange()
        guard case .request(let serverID, _)? = serverEvents.first else { return XCTFail() }
        pair.server.submit(streamID: serverID, response: HTTPResponse(status: 200, headers: ["grpc-status": "12"]))
        let (events, _) = try pair.exchange()
        guard case .response(id, 200, let headers, true)? = events.first else { return XCTFail("\(events)") }
        XCTAssertEqual(headers["grpc-status"], "12")
    }

    func testServerResetAndGoAway() throws {
        let pair = try makePair()
        let id = try pair.client.submitRequest(method: "POST", authority: "test", path: "/x", headers: [:], body: [0])
        let (_, serverEvents) = try pair.exchange()
        guard case .request(let serverID, _)? = serverEvents.first else { return XCTFail() }
        pair.server.reset(streamID: serverID)
        pair.server.sendGoAway()
        let (events, _) = try pair.exchange()
        XCTAssertTrue(events.contains { if case .streamClosed(id, HTTP2ErrorCode.cancel) = $0 { true } else { false } },
                      "\(events)")
        XCTAssertTrue(events.contains { if case .goAway(id, 0) = $0 { true } else { false } }, "\(events)")
        XCTAssertTrue(pair.client.goAwayReceived)
        XCTAssertFalse(pair.client.canSubmitRequests)
        XCTAssertThrowsError(
            try pair.client.submitRequest(method: "GET", authority: "t", path: "/", headers: [:], body: []))
    }
}
