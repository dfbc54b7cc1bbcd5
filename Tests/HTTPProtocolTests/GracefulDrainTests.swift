import HTTP2
import HTTPCore
import XCTest

/// The two-step GOAWAY (RFC 9113 §6.8): ``GracefulDrain``'s transitions by table, then the
/// server session against a real nghttp2 client, bytes pumped in memory so the race between
/// a request already on the wire and the shutdown notice is staged exactly.
final class GracefulDrainTests: XCTestCase {
    enum Step { case begin, written, ack, tickBeforeDeadline, tickAfterDeadline, closeNow }

    func testTransitionsByTable() {
        let start = ContinuousClock.now
        let cases: [(steps: [Step], actions: [GracefulDrain.Action], final: Bool)] = [
            ([.begin], [.sendNotice], false),
            ([.begin, .written], [.sendNotice, .sendPing], false),
            ([.begin, .written, .written], [.sendNotice, .sendPing, .none], false),
            ([.begin, .ack], [.sendNotice, .none], false),  // no PING out yet: nothing to acknowledge
            ([.begin, .written, .ack], [.sendNotice, .sendPing, .sendFinalGoAway], true),
            ([.begin, .written, .ack, .ack], [.sendNotice, .sendPing, .sendFinalGoAway, .none], true),
            ([.begin, .begin], [.sendNotice, .none], false),
            ([.begin, .written, .tickBeforeDeadline], [.sendNotice, .sendPing, .none], false),
            ([.begin, .written, .tickAfterDeadline], [.sendNotice, .sendPing, .sendFinalGoAway], true),
            ([.begin, .tickAfterDeadline], [.sendNotice, .sendFinalGoAway], true),
            ([.begin, .tickAfterDeadline, .written], [.sendNotice, .sendFinalGoAway, .none], true),
            ([.begin, .written, .tickAfterDeadline, .ack], [.sendNotice, .sendPing, .sendFinalGoAway, .none], true),
            ([.ack], [.none], false),
            ([.written], [.none], false),
            ([.tickAfterDeadline], [.none], false),
            ([.closeNow], [.sendFinalGoAway], true),
            ([.closeNow, .begin], [.sendFinalGoAway, .none], true),
            ([.begin, .written, .closeNow, .ack], [.sendNotice, .sendPing, .sendFinalGoAway, .none], true),
        ]
        for (steps, expected, final) in cases {
            var drain = GracefulDrain()
            let actions = steps.map { step -> GracefulDrain.Action in
                switch step {
                case .begin: return drain.begin(now: start)
                case .written: return drain.noticeWritten()
                case .ack: return drain.pingAcknowledged()
                case .tickBeforeDeadline:
                    return drain.tick(now: start + GracefulDrain.acknowledgementTimeout - .milliseconds(1))
                case .tickAfterDeadline: return drain.tick(now: start + GracefulDrain.acknowledgementTimeout)
                case .closeNow: return drain.closeNow()
                }
            }
            XCTAssertEqual(actions, expected, "\(steps)")
            XCTAssertEqual(drain.phase == .finalSent, final, "\(steps)")
        }
    }

    func grpcHead() -> [(String, String)] {
        [(":method", "POST"), (":scheme", "http"), (":path", "/pkg.Svc/M"), (":authority", "localhost"),
         ("content-type", "application/grpc"), ("te", "trailers")]
    }

    func answer(_ server: HTTP2ServerSession, _ id: Int32) {
        server.submit(streamID: id, response: HTTPResponse(
            status: 200, headers: ["content-type": "application/grpc"], body: [0, 0, 0, 0, 0],
            trailers: ["grpc-status": "0"]))
    }

    func testStreamSentBeforeTheClientReadTheNoticeIsServedThenFinalGoAwayCoversIt() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let first = try client.submitRequest(grpcHead(), body: [0, 0, 0, 0, 0])
        try client.exchange(with: server)

        server.beginDrain()
        var notice: [UInt8] = []
        try server.send(into: &notice)
        XCTAssertEqual(HTTP2TestClient.frameTypes(in: notice), [.goAway, .ping], "the notice, then the PING")
        XCTAssertFalse(server.goAwaySent, "the notice is not the final GOAWAY")

        // The client sends a request before it has read the notice (it is in flight both ways).
        let late = try client.submitRequest(grpcHead(), body: [0, 0, 0, 0, 0])
        let request = try client.send()
        try request.withUnsafeBytes { try server.receive($0) }
        let events = server.takeEvents()
        XCTAssertTrue(events.contains { if case .request(late, _) = $0 { true } else { false } },
                      "a stream opened after the notice went out is still accepted: \(events)")

        try client.receive(notice)
        XCTAssertEqual(client.goAway?.lastStreamID, Int32.max, "the notice refuses nothing")
        XCTAssertEqual(client.goAway?.errorCode, 0)
        XCTAssertTrue(server.isActive)

        // The client's PING ACK reaches the server: the final GOAWAY names the late stream.
        try client.exchange(with: server)
        XCTAssertTrue(server.goAwaySent)
        XCTAssertEqual(client.goAway?.lastStreamID, late, "the final GOAWAY covers every stream sent before the ACK")

        answer(server, first)
        answer(server, late)
        try client.exchange(with: server)
        XCTAssertEqual(client.streams[first]?.trailer("grpc-status"), "0")
        XCTAssertEqual(client.streams[late]?.trailer("grpc-status"), "0")
        XCTAssertFalse(server.isActive, "both streams done after the final GOAWAY: the connection can close")
    }

    func testIdleConnectionStaysOpenUntilTheAcknowledgementThenEnds() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        try client.exchange(with: server)
        server.beginDrain()
        var notice: [UInt8] = []
        try server.send(into: &notice)
        XCTAssertEqual(HTTP2TestClient.frameTypes(in: notice), [.goAway, .ping])
        XCTAssertTrue(server.isActive, "no stream yet, but one may be on its way")
        // An idle nghttp2 client ignores what follows a GOAWAY (it has nothing left to say), so
        // it is handed only the PING here, as a client that answers PINGs would read it.
        let goAwayFrameLength = 9 + 8
        try client.receive(Array(notice[goAwayFrameLength...]))
        try client.exchange(with: server)
        XCTAssertTrue(server.goAwaySent)
        XCTAssertEqual(client.goAway?.lastStreamID, 0, "no stream was processed")
        XCTAssertFalse(server.isActive)
    }

    func testKeepalivePingAcknowledgementDoesNotEndTheNotice() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let id = try client.submitRequest(grpcHead(), body: [0, 0, 0, 0, 0])
        try client.exchange(with: server)
        server.sendPing()
        var ping: [UInt8] = []
        try server.send(into: &ping)
        server.beginDrain()
        var notice: [UInt8] = []
        try server.send(into: &notice)
        try client.receive(ping)
        let ack = try client.send()
        try ack.withUnsafeBytes { try server.receive($0) }
        XCTAssertFalse(server.goAwaySent, "a keepalive PING's ACK says nothing about the notice")
        try client.receive(notice)
        try client.exchange(with: server)
        XCTAssertTrue(server.goAwaySent)
        XCTAssertEqual(client.goAway?.lastStreamID, id)
    }

    func testClientThatNeverAcknowledgesGetsTheFinalGoAwayAfterTheTimeout() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        let id = try client.submitRequest(grpcHead(), body: [0, 0, 0, 0, 0])
        try client.exchange(with: server)
        let start = ContinuousClock.now
        server.beginDrain(now: start)
        var notice: [UInt8] = []
        try server.send(into: &notice)
        server.checkDrainDeadline(now: start + .milliseconds(999))
        XCTAssertFalse(server.goAwaySent)
        server.checkDrainDeadline(now: start + GracefulDrain.acknowledgementTimeout)
        XCTAssertTrue(server.goAwaySent)
        var final: [UInt8] = []
        try server.send(into: &final)
        XCTAssertEqual(HTTP2TestClient.frameTypes(in: final), [.goAway])
        try client.receive(notice + final)
        XCTAssertEqual(client.goAway?.lastStreamID, id)
    }
}
