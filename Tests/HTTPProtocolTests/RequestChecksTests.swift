@testable import HTTP2
import XCTest

/// ``RequestChecks`` rule by rule, without a session: each table lists requests and whether the
/// rule lets them through. ``RequestChecksDifferentialTests`` holds the same rules to nghttp2's.
final class RequestChecksTests: XCTestCase {
    /// One request through the checks: its head, DATA sizes, trailers; whether it was accepted.
    func accepts(_ head: [(String, String)], data: [Int] = [], trailers: [(String, String)]? = nil,
                 ends: Bool = true) -> Bool {
        var checks = RequestChecks()
        func field(_ name: String, _ value: String, inTrailers: Bool) -> Bool {
            let name = Array(name.utf8), value = Array(value.utf8)
            return name.withUnsafeBufferPointer { name in
                value.withUnsafeBufferPointer { checks.acceptField(name: name, value: $0, inTrailers: inTrailers) }
            }
        }
        for (name, value) in head where !field(name, value, inTrailers: false) { return false }
        guard checks.acceptHead(endsStream: ends && data.isEmpty && trailers == nil) else { return false }
        for (index, count) in data.enumerated() {
            guard checks.acceptData(count: count) else { return false }
            if ends && trailers == nil && index == data.count - 1 { return checks.acceptEndOfStream() }
        }
        guard let trailers else { return true }
        for (name, value) in trailers where !field(name, value, inTrailers: true) { return false }
        return checks.acceptTrailers(endsStream: ends)
    }

    let get = [(":method", "GET"), (":scheme", "http"), (":path", "/p")]
    let post = [(":method", "POST"), (":scheme", "http"), (":path", "/p")]

    func check(_ table: [(String, Bool, Bool)], file: StaticString = #filePath, line: UInt = #line) {
        for (name, expected, actual) in table {
            XCTAssertEqual(actual, expected, name, file: file, line: line)
        }
    }

    func testFieldNamesAreLowercaseTokens() {
        check([
            ("lowercase", true, accepts(get + [("x-a", "1")])),
            ("uppercase", false, accepts(get + [("X-A", "1")])),
            ("space", false, accepts(get + [("x a", "1")])),
            ("empty", false, accepts(get + [("", "1")])),
            ("colon alone", false, accepts(get + [(":", "1")])),
        ])
    }

    func testValuesHoldOnlyTheirCharacters() {
        check([
            ("obs-text", true, accepts(get + [("x-a", "caf\u{e9}")])),
            ("inner space and tab", true, accepts(get + [("x-a", "a \tb")])),
            ("empty regular value", true, accepts(get + [("x-a", "")])),
            ("control character", false, accepts(get + [("x-a", "a\u{1}")])),
            ("DEL", false, accepts(get + [("x-a", "\u{7f}")])),
            ("leading space", false, accepts(get + [("x-a", " a")])),
            ("trailing tab", false, accepts(get + [("x-a", "a\t")])),
            ("space in :method", false, accepts([(":method", "G T"), (":scheme", "http"), (":path", "/")])),
            ("space in :path", false, accepts([(":method", "GET"), (":scheme", "http"), (":path", "/a b")])),
            ("space in :authority", false, accepts(get + [(":authority", "a b")])),
            ("IPv6 :authority", true, accepts(get + [(":authority", "[::1]:80")])),
            ("space in host", false, accepts(get + [("host", "a b")])),
        ])
    }

    func testPseudoHeadersComeFirstAndOnlyInTheHead() {
        check([
            ("after a regular field", false, accepts([(":method", "GET"), ("x-a", "1"), (":scheme", "http"),
                                                      (":path", "/")])),
            ("in trailers", false, accepts(post, data: [1], trailers: [(":path", "/")])),
            ("regular trailers", true, accepts(post, data: [1], trailers: [("x-t", "1")])),
        ])
    }

    func testOnlyRequestPseudoHeadersOnceEachNotEmpty() {
        check([
            ("unknown", false, accepts(get + [(":x", "1")])),
            (":status", false, accepts(get + [(":status", "200")])),
            (":protocol without extended CONNECT", false, accepts(get + [(":protocol", "websocket")])),
            ("two :method", false, accepts(get + [(":method", "GET")])),
            ("two :scheme", false, accepts(get + [(":scheme", "http")])),
            ("two :path", false, accepts(get + [(":path", "/")])),
            ("two :authority", false, accepts(get + [(":authority", "a"), (":authority", "a")])),
            ("two host", false, accepts(get + [("host", "a"), ("host", "a")])),
            (":authority and host", true, accepts(get + [(":authority", "a"), ("host", "a")])),
            ("empty :method", false, accepts([(":method", ""), (":scheme", "http"), (":path", "/")])),
            ("empty :path", false, accepts([(":method", "GET"), (":scheme", "http"), (":path", "")])),
            ("empty :scheme", false, accepts([(":method", "GET"), (":scheme", ""), (":path", "/")])),
            ("empty :authority", false, accepts(get + [(":authority", "")])),
            ("empty host", false, accepts(get + [("host", "")])),
        ])
    }

    func testMethodSchemeAndPathAreRequiredAuthorityIsNot() {
        check([
            ("all three", true, accepts(get)),
            ("no :method", false, accepts([(":scheme", "http"), (":path", "/")])),
            ("no :scheme", false, accepts([(":method", "GET"), (":path", "/")])),
            ("no :path", false, accepts([(":method", "GET"), (":scheme", "http")])),
            ("with :authority", true, accepts(get + [(":authority", "a")])),
            ("with host", true, accepts(get + [("host", "a")])),
        ])
    }

    func testPathForm() {
        check([
            ("http needs /", false, accepts([(":method", "GET"), (":scheme", "http"), (":path", "p")])),
            ("HTTPS too", false, accepts([(":method", "GET"), (":scheme", "HTTPS"), (":path", "p")])),
            ("OPTIONS *", true, accepts([(":method", "OPTIONS"), (":scheme", "http"), (":path", "*")])),
            ("GET *", false, accepts([(":method", "GET"), (":scheme", "http"), (":path", "*")])),
            ("other scheme, any path", true, accepts([(":method", "GET"), (":scheme", "a+b.c-1"), (":path", "p")])),
            ("scheme starting with a digit", false, accepts([(":method", "GET"), (":scheme", "1x"), (":path", "/")])),
        ])
    }

    func testConnect() {
        let connect = [(":method", "CONNECT"), (":authority", "a:443")]
        check([
            ("authority only", true, accepts(connect, data: [5], ends: false)),
            ("no :authority", false, accepts([(":method", "CONNECT")])),
            ("host is not enough", false, accepts([(":method", "CONNECT"), ("host", "a:443")])),
            ("with :path", false, accepts(connect + [(":path", "/")])),
            ("with :scheme", false, accepts(connect + [(":scheme", "http")])),
            ("content-length ignored", true, accepts(connect + [("content-length", "1")], data: [5])),
        ])
    }

    func testConnectionSpecificFieldsAndTE() {
        check([
            ("connection", false, accepts(get + [("connection", "close")])),
            ("keep-alive", false, accepts(get + [("keep-alive", "5")])),
            ("proxy-connection", false, accepts(get + [("proxy-connection", "1")])),
            ("transfer-encoding", false, accepts(get + [("transfer-encoding", "chunked")])),
            ("upgrade", false, accepts(get + [("upgrade", "h2c")])),
            ("te: trailers", true, accepts(get + [("te", "trailers")])),
            ("te: TRAILERS", true, accepts(get + [("te", "TRAILERS")])),
            ("te: gzip", false, accepts(get + [("te", "gzip")])),
            ("te: trailers, gzip", false, accepts(get + [("te", "trailers, gzip")])),
            ("in trailers too", false, accepts(post, data: [1], trailers: [("connection", "close")])),
        ])
    }

    func testContentLengthAgainstData() {
        let declared = { (value: String) in self.post + [("content-length", value)] }
        check([
            ("matching across frames", true, accepts(declared("4"), data: [2, 2])),
            ("zero, no DATA", true, accepts(declared("0"))),
            ("declared, no DATA", false, accepts(declared("4"))),
            ("more DATA", false, accepts(declared("1"), data: [4])),
            ("more DATA, stream still open", false, accepts(declared("1"), data: [2], ends: false)),
            ("less DATA", false, accepts(declared("9"), data: [4])),
            ("less DATA, stream still open", true, accepts(declared("9"), data: [4], ends: false)),
            ("twice", false, accepts(declared("4") + [("content-length", "4")], data: [4])),
            ("signed", false, accepts(declared("+4"), data: [4])),
            ("empty", false, accepts(declared(""))),
            ("leading zero", true, accepts(declared("04"), data: [4])),
            ("over Int64", false, accepts(declared("9223372036854775808"))),
            ("Int64.max", true, accepts(declared("9223372036854775807"), data: [4], ends: false)),
            ("declared in trailers", true, accepts(post, data: [4], trailers: [("content-length", "4")])),
            ("wrong in trailers", false, accepts(post, data: [4], trailers: [("content-length", "5")])),
            ("checked when trailers end it", false, accepts(declared("5"), data: [4], trailers: [("x-t", "1")])),
        ])
    }

    func testTrailersEndTheStream() {
        check([
            ("ending", true, accepts(post, data: [1], trailers: [("x-t", "1")])),
            ("not ending", false, accepts(post, data: [1], trailers: [("x-t", "1")], ends: false)),
        ])
    }
}
