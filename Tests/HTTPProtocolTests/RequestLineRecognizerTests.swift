import HTTP1
import XCTest

/// ``RequestLineRecognizer`` as a table: what may start an HTTP/1.x request, what may not, and
/// that feeding the same bytes in pieces gives the same verdict.
final class RequestLineRecognizerTests: XCTestCase {
    typealias Verdict = RequestLineRecognizer.Verdict

    let table: [(input: String, verdict: Verdict, why: String)] = [
        ("GET /healthz HTTP/1.1\r\n", .http1, "a plain request line"),
        ("GET /healthz HTTP/1.0\n", .http1, "bare LF ends the line, as http_parser accepts"),
        ("\r\n\r\nGET / HTTP/1.1\r\n", .http1, "empty lines before the request are ignored (RFC 9112 §2.2)"),
        ("M-SEARCH * HTTP/1.1\r\n", .http1, "any token is a method; the parser judges it"),
        ("GET /caf\u{e9} HTTP/1.1\r\n", .http1, "obs-text in the target is the parser's to refuse"),
        ("GET /heal", .needMore, "a request line still arriving"),
        ("GET / HTTP/1.", .needMore, "version still arriving"),
        ("GET / HTTP/1.1\r", .needMore, "CR waits for its LF"),
        ("", .needMore, "nothing yet"),
        ("INVALID CONNECTION PREFACE\r\n\r\n", .notHTTP1, "h2spec 3.5/2: the version is not HTTP/1.x"),
        ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .notHTTP1, "the HTTP/2 preface is not an HTTP/1.x request"),
        ("HELLO\u{1} THERE\r\n\r\n", .notHTTP1, "a control character in the method"),
        ("GET /\r\n", .notHTTP1, "HTTP/0.9 is not HTTP/1.x"),
        ("GET  / HTTP/1.1\r\n", .notHTTP1, "two spaces: an empty target"),
        (" GET / HTTP/1.1\r\n", .notHTTP1, "leading whitespace is not an empty line"),
        ("GET / http/1.1\r\n", .notHTTP1, "HTTP-name is case-sensitive"),
        ("GET / HTTP/1.x\r\n", .notHTTP1, "the minor version is a digit"),
        ("GET / HTTP/1.1 extra\r\n", .notHTTP1, "nothing after the version"),
        ("GET / HTTP/1.1\rX", .notHTTP1, "CR not followed by LF"),
        ("\u{16}\u{3}\u{1}\u{2}\u{0}", .notHTTP1, "a TLS ClientHello"),
        ("GET /a\tb HTTP/1.1\r\n", .notHTTP1, "a tab in the target"),
    ]

    func testTable() {
        for row in table {
            var recognizer = RequestLineRecognizer()
            XCTAssertEqual(
                recognizer.classify(Array(row.input.utf8)), row.verdict, "\(row.why): \(row.input.debugDescription)")
        }
    }

    func testByteByByteGivesTheSameVerdict() {
        for row in table {
            var recognizer = RequestLineRecognizer()
            let bytes = Array(row.input.utf8)
            var verdict = recognizer.classify(bytes[..<0])
            for end in bytes.indices {
                verdict = recognizer.classify(bytes[...end])
                if verdict != .needMore { break }
            }
            XCTAssertEqual(verdict, row.verdict, "fed one byte at a time: \(row.why)")
        }
    }

    func testVerdictSticksOnceGiven() {
        var recognizer = RequestLineRecognizer()
        XCTAssertEqual(recognizer.classify(Array("GET / HTTP/1.1\r\n".utf8)), .http1)
        XCTAssertEqual(recognizer.classify(Array("GET / HTTP/1.1\r\n\u{1}\u{1}".utf8)), .http1,
                       "bytes after the line are the parser's (headers, body)")
        var refused = RequestLineRecognizer()
        XCTAssertEqual(refused.classify(Array("\u{1}".utf8)), .notHTTP1)
        XCTAssertEqual(refused.classify(Array("\u{1}GET / HTTP/1.1\r\n".utf8)), .notHTTP1)
    }

    func testOverlongLineIsLeftToTheParsersLimit() {
        var recognizer = RequestLineRecognizer(maxLength: 64)
        let long = Array(("GET /" + String(repeating: "a", count: 100)).utf8)
        XCTAssertEqual(recognizer.classify(long), .http1, "the parser answers 431 for a head over its limit")
        var short = RequestLineRecognizer(maxLength: 64)
        XCTAssertEqual(short.classify(long.prefix(63)), .needMore)
    }
}
