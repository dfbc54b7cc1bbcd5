import HTTP2
import HTTPCore
import XCTest

/// RFC 9113 §5.1.1 on ``HTTP2ServerSession``: HEADERS that would open a stream below one the
/// client already opened is a connection error (PROTOCOL_ERROR), while HEADERS below the highest
/// stream that are legal (trailers on an open stream, late frames on a stream the server reset)
/// still pass. The frames are written by hand: a real client library refuses to send the
/// illegal sequence, which is the point.
final class HTTP2StreamIdentifierTests: XCTestCase {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let protocolError: UInt32 = 1

    enum Flag {
        static let endStream: UInt8 = 0x1
        static let endHeaders: UInt8 = 0x4
    }

    func frame(type: UInt8, flags: UInt8, stream: Int32, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff), type, flags,
                UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
            + payload
    }

    /// An HPACK block of literal fields without indexing (RFC 7541 §6.2.2): no table state, so
    /// each block stands alone whatever order the frames go out in.
    func headerBlock(_ fields: [(String, String)]) -> [UInt8] {
        fields.flatMap { name, value -> [UInt8] in
            precondition(name.utf8.count < 127 && value.utf8.count < 127)
            return [0x00, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(value.utf8.count)] + Array(value.utf8)
        }
    }

    func headers(stream: Int32, endStream: Bool, _ fields: [(String, String)]) -> [UInt8] {
        frame(type: 0x1, flags: Flag.endHeaders | (endStream ? Flag.endStream : 0), stream: stream, headerBlock(fields))
    }

    let request = [(":method", "POST"), (":scheme", "http"), (":path", "/pkg.Svc/M"), (":authority", "localhost"),
                   ("content-type", "application/grpc"), ("te", "trailers")]
    let trailers = [("x-trailer", "1")]

    /// The preface and an empty SETTINGS frame: the start of every client connection.
    var opening: [UInt8] { Self.preface + frame(type: 0x4, flags: 0, stream: 0, []) }

    struct Fed {
        var events: [HTTP2Event] = []
        var output: [UInt8] = []
        var failed = false
    }

    /// Feeds `bytes`, then collects what the server wants to send.
    func feed(_ server: HTTP2ServerSession, _ bytes: [UInt8]) throws -> Fed {
        var fed = Fed()
        do {
            try bytes.withUnsafeBytes { try server.receive($0) }
        } catch {
            fed.failed = true
        }
        fed.events = server.takeEvents()
        try server.send(into: &fed.output)
        return fed
    }

    /// GOAWAY error codes in server output that starts at a frame boundary.
    func goAwayCodes(_ bytes: [UInt8]) -> [UInt32] {
        var codes: [UInt32] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            if bytes[offset + 3] == 0x7, offset + 9 + 8 <= bytes.count {
                codes.append(bytes[(offset + 13)..<(offset + 17)].reduce(0) { $0 << 8 | UInt32($1) })
            }
            offset += 9 + length
        }
        return codes
    }

    func requestIDs(_ events: [HTTP2Event]) -> [Int32] {
        events.compactMap { if case .request(let id, _) = $0 { return id } else { return nil } }
    }

    func testHeadersOnAStreamIDBelowTheHighestIsAConnectionError() throws {
        // h2spec http2/5.1.1/2: stream 5 first, then 3, which opening 5 implicitly closed.
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let first = try feed(server, opening + headers(stream: 5, endStream: true, request))
        XCTAssertFalse(first.failed)
        XCTAssertEqual(requestIDs(first.events), [5])

        let second = try feed(server, headers(stream: 3, endStream: true, request))
        XCTAssertTrue(second.failed, "nghttp2 alone ignores this frame; the session must fail the connection")
        XCTAssertEqual(goAwayCodes(second.output), [Self.protocolError])
        XCTAssertEqual(requestIDs(second.events), [], "stream 3 must not reach the service")
        XCTAssertFalse(server.isActive, "after GOAWAY the session wants no more I/O")
    }

    func testSkippingIdentifiersIsAllowedButTheSkippedOnesAreClosed() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let fed = try feed(server, opening + headers(stream: 1, endStream: true, request)
                           + headers(stream: 7, endStream: true, request)
                           + headers(stream: 9, endStream: true, request))
        XCTAssertFalse(fed.failed, "gaps in client stream IDs are legal")
        XCTAssertEqual(requestIDs(fed.events), [1, 7, 9])
        let reuse = try feed(server, headers(stream: 5, endStream: true, request))
        XCTAssertTrue(reuse.failed, "5 was skipped when 7 opened")
        XCTAssertEqual(goAwayCodes(reuse.output), [Self.protocolError])
    }

    func testTrailersOnAnOpenLowerStreamAreNotAnError() throws {
        // A client streaming a request body on 1 while a later call on 3 completes: its
        // trailers on 1 arrive after 3 opened, and are perfectly legal.
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let fed = try feed(server, opening + headers(stream: 1, endStream: false, request)
                           + headers(stream: 3, endStream: true, request)
                           + frame(type: 0x0, flags: 0, stream: 1, [0, 0, 0, 0, 0])
                           + headers(stream: 1, endStream: true, trailers))
        XCTAssertFalse(fed.failed)
        XCTAssertEqual(goAwayCodes(fed.output), [])
        XCTAssertEqual(requestIDs(fed.events), [3, 1], "1 completes with its trailers")
    }

    func testLateTrailersOnAStreamTheServerResetAreIgnored() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let opened = try feed(server, opening + headers(stream: 1, endStream: false, request)
                              + headers(stream: 3, endStream: true, request))
        XCTAssertEqual(requestIDs(opened.events), [3])
        server.reset(streamID: 1)
        var output: [UInt8] = []
        try server.send(into: &output)
        _ = server.takeEvents()

        // Sent before the client saw the RST_STREAM: must be ignored, not fail the connection.
        let late = try feed(server, frame(type: 0x0, flags: 0, stream: 1, [0, 0, 0, 0, 0])
                            + headers(stream: 1, endStream: true, trailers))
        XCTAssertFalse(late.failed)
        XCTAssertEqual(goAwayCodes(late.output), [])
        XCTAssertEqual(requestIDs(late.events), [])

        let next = try feed(server, headers(stream: 5, endStream: true, request))
        XCTAssertFalse(next.failed)
        XCTAssertEqual(requestIDs(next.events), [5], "the connection still serves new streams")
    }

    func testSkippedIdentifiersAreRememberedWithinABound() throws {
        // 1, 5, 9, ...: every opening skips one ID. The oldest skips are forgotten past the
        // bound (HEADERS there is then ignored, nghttp2's own behaviour) so memory stays fixed.
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let gaps = 70
        var bytes = opening
        for n in 0...gaps { bytes += headers(stream: Int32(1 + 4 * n), endStream: true, request) }
        XCTAssertFalse(try feed(server, bytes).failed)

        let forgotten = try feed(server, headers(stream: 3, endStream: true, request))
        XCTAssertFalse(forgotten.failed, "the oldest skipped ranges are dropped past the bound")
        XCTAssertEqual(requestIDs(forgotten.events), [], "and nghttp2 ignores the frame")
        let remembered = try feed(server, headers(stream: Int32(4 * gaps - 1), endStream: true, request))
        XCTAssertTrue(remembered.failed, "a recent skip is still a connection error")
    }
}
