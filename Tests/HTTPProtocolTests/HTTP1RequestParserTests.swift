import HTTP1
import HTTPCore
import XCTest

final class HTTP1RequestParserTests: XCTestCase {
    func parse(_ text: String, _ parser: HTTP1RequestParser = HTTP1RequestParser()) -> HTTP1RequestParser.Outcome {
        Array(text.utf8).withUnsafeBytes { parser.parse($0) }
    }

    func request(_ outcome: HTTP1RequestParser.Outcome, file: StaticString = #filePath, line: UInt = #line)
        -> (HTTPRequest, Bool, Int)? {
        if case .request(let request, let keepAlive, let consumed) = outcome { return (request, keepAlive, consumed) }
        XCTFail("expected a request, got \(outcome)", file: file, line: line)
        return nil
    }

    func failureStatus(_ outcome: HTTP1RequestParser.Outcome) -> Int? {
        if case .failure(let status, _) = outcome { return status }
        return nil
    }

    func testSimpleGet() throws {
        let parsed = try XCTUnwrap(request(parse("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Thing: A b\r\n\r\n")))
        XCTAssertEqual(parsed.0.method, "GET")
        XCTAssertEqual(parsed.0.path, "/healthz")
        XCTAssertEqual(parsed.0.headers["host"], "x")
        XCTAssertEqual(parsed.0.headers["x-thing"], "A b", "names are lowercased, values kept")
        XCTAssertTrue(parsed.1)
        XCTAssertEqual(parsed.0.version, .http1_1)
    }

    func testContentLengthBody() throws {
        let parsed = try XCTUnwrap(request(parse("POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")))
        XCTAssertEqual(parsed.0.body, Array("hello".utf8))
    }

    func testChunkedBody() throws {
        let text = "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
        let parsed = try XCTUnwrap(request(parse(text)))
        XCTAssertEqual(parsed.0.body, Array("abcde".utf8))
    }

    func testRequestSplitAcrossReads() throws {
        let parser = HTTP1RequestParser()
        let text = "POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyz"
        let split = text.index(text.startIndex, offsetBy: 20)
        guard case .needMore = parse(String(text[..<split]), parser) else { return XCTFail("expected needMore") }
        XCTAssertTrue(parser.isMidRequest)
        let parsed = try XCTUnwrap(request(parse(String(text[split...]), parser)))
        XCTAssertEqual(parsed.0.body, Array("xyz".utf8))
        XCTAssertFalse(parser.isMidRequest)
    }

    func testPipelinedRequestsComeOneAtATime() throws {
        let parser = HTTP1RequestParser()
        let first = "GET /one HTTP/1.1\r\n\r\n"
        let both = first + "GET /two HTTP/1.1\r\n\r\n"
        let parsed = try XCTUnwrap(request(parse(both, parser)))
        XCTAssertEqual(parsed.0.path, "/one")
        XCTAssertEqual(parsed.2, first.utf8.count, "stops right after the first request")
        // Slice bytes, not Characters: "\r\n" is a single Character.
        let rest = String(decoding: Array(both.utf8)[parsed.2...], as: UTF8.self)
        let second = try XCTUnwrap(request(parse(rest, parser)))
        XCTAssertEqual(second.0.path, "/two")
    }

    func testConnectionCloseAndHTTP10AreNotKeepAlive() throws {
        XCTAssertEqual(request(parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n"))?.1, false)
        XCTAssertEqual(request(parse("GET / HTTP/1.0\r\n\r\n"))?.1, false)
    }

    func testAmbiguousFramingIsRefused() {
        let smuggling = [
            "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
            "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "GET / HTTP/1.1\r\nBad Header\r\n\r\n",
            "NOT A REQUEST\r\n\r\n",
        ]
        for text in smuggling {
            XCTAssertEqual(failureStatus(parse(text)), 400, text.debugDescription)
        }
    }

    func testHeaderLimit() {
        let parser = HTTP1RequestParser(limits: .init(maxHeaderBytes: 100, maxBodySize: 1000))
        let text = "GET / HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 200))\r\n\r\n"
        XCTAssertEqual(failureStatus(parse(text, parser)), 431)
    }

    func testBodyLimitByContentLengthAndByChunks() {
        let limits = HTTP1RequestParser.Limits(maxHeaderBytes: 1000, maxBodySize: 4)
        XCTAssertEqual(
            failureStatus(parse("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", HTTP1RequestParser(limits: limits))),
            413)
        let chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n"
        XCTAssertEqual(failureStatus(parse(chunked, HTTP1RequestParser(limits: limits))), 413)
    }

    func testResponseSerialization() {
        var out: [UInt8] = []
        HTTP1ResponseSerializer.serialize(.text(404, "nope"), keepAlive: false, into: &out)
        let text = String(decoding: out, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        XCTAssertTrue(text.contains("content-length: 4\r\n"))
        XCTAssertTrue(text.contains("connection: close\r\n"))
        XCTAssertTrue(text.hasSuffix("\r\n\r\nnope"))
    }
}
