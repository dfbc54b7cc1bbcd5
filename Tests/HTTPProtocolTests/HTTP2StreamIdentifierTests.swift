import HTTP2
import HTTPCore
import XCTest

/// RFC 9113 §5.1.1 on ``HTTP2ServerSession``: HEADERS that would open a stream below one the
/// client already opened is a connection error (PROTOCOL_ERROR), while HEADERS below the highest
/// stream that are legal (trailers on an open stream, late frames on a stream the server reset)
/// still pass. The frames are written by hand: a real client library refuses to send the
/// illegal sequence, which is the point.
final class HTTP2StreamIdentifierTests: XCTestCase, RawFrameFeeding {
    func testHeadersOnAStreamIDBelowTheHighestIsAConnectionError() throws {
        // h2spec http2/5.1.1/2: stream 5 first, then 3, which opening 5 implicitly closed.
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let first = try feed(server, opening + headers(stream: 5, endStream: true, request))
        XCTAssertFalse(first.failed)
        XCTAssertEqual(requestIDs(first.events), [5])

        let second = try feed(server, headers(stream: 3, endStream: true, request))
        XCTAssertTrue(second.failed, "nghttp2 alone ignores this frame; the session must fail the connection")
        XCTAssertEqual(goAwayCodes(second.output), [RawFrames.protocolError])
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
        XCTAssertEqual(goAwayCodes(reuse.output), [RawFrames.protocolError])
    }

    func testTrailersOnAnOpenLowerStreamAreNotAnError() throws {
        // A client streaming a request body on 1 while a later call on 3 completes: its
        // trailers on 1 arrive after 3 opened, and are perfectly legal.
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let fed = try feed(server, opening + headers(stream: 1, endStream: false, request)
                           + headers(stream: 3, endStream: true, request)
                           + data(stream: 1)
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
        let late = try feed(server, data(stream: 1)
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
