internal import CNGHTTP2
@testable import HTTP2
import HTTPCore
import XCTest

/// RFC 9113 §5.1 and §6.1 on streams that have closed: DATA or HEADERS on a stream closed after
/// the client ended its side is a connection error of type STREAM_CLOSED (h2spec http2/5.1/5,
/// 5.1/6, 5.1/8, 5.1/9), while the session keeps no closed stream in nghttp2: kept, each was a
/// few hundred bytes, up to 256 per connection, which a server holding 10,000 mostly idle
/// connections grew by with every call.
final class HTTP2ClosedStreamTests: XCTestCase, RawFrameFeeding {
    /// Opens `stream` with a complete request and answers it, so the stream closes.
    func call(_ server: HTTP2ServerSession, stream: Int32, first: Bool = false) throws {
        let asked = try feed(server, (first ? opening : []) + headers(stream: stream, endStream: true, request))
        XCTAssertEqual(requestIDs(asked.events), [stream])
        let response = HTTPResponse(status: 200, headers: ["content-type": "application/grpc"], body: [0, 0, 0, 0, 0],
                                    trailers: ["grpc-status": "0"])
        server.submit(streamID: stream, response: response)
        var output: [UInt8] = []
        try server.send(into: &output)
        XCTAssertEqual(server.openStreamCount, 0, "stream \(stream) answered and closed")
    }

    func testDataOnAStreamThatClosedIsStreamClosed() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        try call(server, stream: 1, first: true)
        let late = try feed(server, data(stream: 1))
        XCTAssertTrue(late.failed)
        XCTAssertEqual(goAwayCodes(late.output), [RawFrames.streamClosed])
        XCTAssertFalse(server.isActive)
    }

    func testHeadersOnAStreamThatClosedIsStreamClosed() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        try call(server, stream: 1, first: true)
        try call(server, stream: 3)
        let late = try feed(server, headers(stream: 1, endStream: true, trailers))
        XCTAssertTrue(late.failed)
        XCTAssertEqual(goAwayCodes(late.output), [RawFrames.streamClosed])
        XCTAssertEqual(requestIDs(late.events), [])
    }

    func testFramesAfterTheClientsOwnResetAreStreamClosedEvenInTheSameRead() throws {
        for late in [data(stream: 1), headers(stream: 1, endStream: true, trailers)] {
            let server = try HTTP2ServerSession(limits: HTTP2Limits())
            let fed = try feed(server, opening + headers(stream: 1, endStream: false, request) + rstStream(1) + late)
            XCTAssertTrue(fed.failed, "the reset closed stream 1 before the frame after it")
            XCTAssertEqual(goAwayCodes(fed.output), [RawFrames.streamClosed])
            XCTAssertEqual(requestIDs(fed.events), [])
        }
    }

    func testAResetEndingInTheNextReadClosesItsStreamBeforeTheFrameAfterIt() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let reset = rstStream(1)
        let first = try feed(server, opening + headers(stream: 1, endStream: false, request) + reset.prefix(11))
        XCTAssertFalse(first.failed)
        let rest = try feed(server, Array(reset.dropFirst(11)) + data(stream: 1))
        XCTAssertTrue(rest.failed)
        XCTAssertEqual(goAwayCodes(rest.output), [RawFrames.streamClosed])
    }

    func testAFrameHeaderSplitAcrossReadsIsStillChecked() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        try call(server, stream: 1, first: true)
        let late = data(stream: 1)
        var failedAt: Int?
        for (index, byte) in late.enumerated() where failedAt == nil {
            if try feed(server, [byte]).failed { failedAt = index }
        }
        XCTAssertEqual(failedAt, 8, "a header arriving a byte at a time is checked when its ninth byte comes")
        XCTAssertFalse(server.isActive)
    }

    func testDataOnOpenStreamsInTheSameReadPasses() throws {
        // The usual read: HEADERS and DATA of several new calls together; none has closed.
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        var bytes = opening
        for stream: Int32 in [1, 3, 5] {
            bytes += headers(stream: stream, endStream: false, request) + data(stream: stream, endStream: true)
        }
        let fed = try feed(server, bytes)
        XCTAssertFalse(fed.failed)
        XCTAssertEqual(requestIDs(fed.events), [1, 3, 5])
    }

    func testClosedStreamsAreRememberedButNotKeptInNghttp2() throws {
        // More calls than the 256 closed streams nghttp2 would have kept; the first is still
        // known closed, and nghttp2 holds none of them.
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        try call(server, stream: 1, first: true)
        for n in 1...300 { try call(server, stream: Int32(1 + 2 * n)) }
        XCTAssertNil(nghttp2_session_find_stream(server.session, 1))
        XCTAssertNil(nghttp2_session_find_stream(server.session, 601))
        XCTAssertEqual(server.clientStreamIDs.closed, [1...601], "301 streams closed in order: one range")
        let late = try feed(server, data(stream: 1))
        XCTAssertEqual(goAwayCodes(late.output), [RawFrames.streamClosed])
    }

    func testAStreamTheServerResetWhileTheClientSentIsNotClosedForIt() throws {
        // RFC 9113 §5.1: frames the client sent before it saw the server's RST_STREAM are ignored.
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        _ = try feed(server, opening + headers(stream: 1, endStream: false, request))
        server.reset(streamID: 1)
        var output: [UInt8] = []
        try server.send(into: &output)
        try call(server, stream: 3)
        XCTAssertEqual(server.clientStreamIDs.closed, [3...3], "1 is a gap: reset by the server")
        let late = try feed(server, data(stream: 1, endStream: true))
        XCTAssertFalse(late.failed)
        XCTAssertEqual(goAwayCodes(late.output), [])
    }
}

/// ``ClientStreamIDs``' record of closed streams on its own.
final class ClientStreamIDsClosedTests: XCTestCase {
    func testOutOfOrderClosesMergeIntoOneRange() {
        var ids = ClientStreamIDs()
        for id: Int32 in [5, 1, 9, 3, 7] { ids.noteClosed(id) }
        XCTAssertEqual(ids.closed, [1...9])
        XCTAssertTrue(ids.isClosed(7))
        XCTAssertFalse(ids.isClosed(11))
        XCTAssertFalse(ids.isClosed(2), "even identifiers are not client streams")
    }

    func testAGapStaysOpenUntilItsStreamCloses() {
        var ids = ClientStreamIDs()
        for id: Int32 in [1, 3, 7, 9] { ids.noteClosed(id) }
        XCTAssertEqual(ids.closed, [1...3, 7...9])
        XCTAssertFalse(ids.isClosed(5))
        ids.noteClosed(5)
        XCTAssertEqual(ids.closed, [1...9])
        ids.noteClosed(5)
        XCTAssertEqual(ids.closed, [1...9], "noting twice changes nothing")
    }

    func testTheLowestRangesAreForgottenPastTheBound() {
        var ids = ClientStreamIDs()
        let ranges = ClientStreamIDs.maxClosedRanges + 10
        for n in 0..<ranges { ids.noteClosed(Int32(1 + 4 * n)) }  // 1, 5, 9, ...: every one a range
        XCTAssertEqual(ids.closed.count, ClientStreamIDs.maxClosedRanges)
        XCTAssertFalse(ids.isClosed(1), "forgotten: a frame there is ignored, as nghttp2 would")
        XCTAssertTrue(ids.isClosed(Int32(1 + 4 * (ranges - 1))))
    }
}
