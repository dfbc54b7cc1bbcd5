@testable import HTTP2
import HTTPCore
import XCTest

/// The server session shares the long header strings a connection repeats (its `:path`, its
/// `user-agent`) instead of decoding each again: what a request carries must still be exactly
/// what the client sent, whatever was shared, evicted or interleaved.
final class HTTP2HeaderReuseTests: XCTestCase {
    func string(_ text: String, in recent: inout RecentHeaderStrings) -> String {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { recent.string($0.baseAddress!, $0.count) }
    }

    func testEveryLookupAnswersTheBytesItWasGiven() {
        var recent = RecentHeaderStrings()
        let inputs = [
            "application/grpc",                                   // a known literal
            "te", "x", "",                                        // short: stored inline, never shared
            "/entitlement.v1.EntitlementService/CheckEntitlement", // long: shared from the second time
            "/entitlement.v1.EntitlementService/CheckEntitlement",
            "/entitlement.v1.EntitlementService/CheckEntitlemenT", // same length, one byte apart
            "grpc-python/1.51.1 grpc-c/29.0.0 (linux; chttp2)",
            "/entitlement.v1.EntitlementService/CheckEntitlement",
            "sixteen-bytes-ab", "sixteen-bytes-ac",               // the shortest shared length
        ]
        for text in inputs {
            XCTAssertEqual(string(text, in: &recent), text)
        }
    }

    func testMoreDistinctValuesThanEntriesStillAnswerCorrectly() {
        var recent = RecentHeaderStrings()
        let values = (0..<40).map { "/pkg.Service/MethodNumber\($0 % 13)" }
        for value in values + values.reversed() {
            XCTAssertEqual(string(value, in: &recent), value)
        }
    }

    func testSharedValuesReachEachRequestUnchanged() throws {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        let client = try HTTP2TestClient()
        var sent: [Int32: (path: String, agent: String, body: [UInt8])] = [:]
        // Several rounds of 20 streams in flight: paths repeat and change, more distinct long
        // values than the session keeps, bodies interleaved with other streams' headers.
        for round in 0..<3 {
            for i in 0..<20 {
                let path = "/entitlement.v1.EntitlementService/Method\(i % 11)"
                let agent = "test-client/\(round).\(i % 3) (a long user agent)"
                let body = Array("body-\(round)-\(i)".utf8)
                let id = try client.submitRequest(
                    [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
                     ("content-type", "application/grpc"), ("user-agent", agent), ("te", "trailers")],
                    body: body)
                sent[id] = (path, agent, body)
            }
            let events = try client.exchange(with: server)
            for case .request(let id, let request) in events {
                let expected = try XCTUnwrap(sent.removeValue(forKey: id))
                XCTAssertEqual(request.method, "POST")
                XCTAssertEqual(request.path, expected.path)
                XCTAssertEqual(request.headers, ["content-type": "application/grpc", "user-agent": expected.agent,
                                                 "te": "trailers"])
                XCTAssertEqual(request.body, expected.body)
                server.submit(streamID: id, response: HTTPResponse(status: 200, body: request.body))
            }
            _ = try client.exchange(with: server)
        }
        XCTAssertTrue(sent.isEmpty, "every stream arrived: \(sent.keys.sorted())")
        XCTAssertEqual(server.openStreamCount, 0)
    }
}
