@testable import HTTP2
import HTTPCore
import XCTest

/// The request body buffer sized from `content-length`: one allocation for a body that arrives
/// in many DATA frames, never more than the body limit, and the same bytes as without it.
final class HTTP2RequestBodyTests: XCTestCase {
    func head(contentLength: String?) -> [(String, String)] {
        [(":method", "POST"), (":scheme", "http"), (":path", "/pkg.Svc/M"), (":authority", "localhost"),
         ("content-type", "application/grpc")] + (contentLength.map { [("content-length", $0)] } ?? [])
    }

    /// A body of several 16 KiB DATA frames, with and without the header, arrives whole; with
    /// it the buffer is the declared size, where growing by appends would have doubled past it.
    func testADeclaredLengthSizesTheBufferOnceAndTheBodyArrivesWhole() throws {
        let length = 100_000
        let body = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let server = try HTTP2ServerSession(limits: HTTP2Limits(maxRequestBodySize: 4 << 20))
        let client = try HTTP2TestClient()
        let declared = try client.submitRequest(head(contentLength: String(length)), body: body)
        let undeclared = try client.submitRequest(head(contentLength: nil), body: body)
        var arrived: [Int32: HTTPRequest] = [:]
        for case .request(let id, let request) in try client.exchange(with: server) { arrived[id] = request }

        let sized = try XCTUnwrap(arrived[declared])
        XCTAssertTrue(sized.body == body)
        XCTAssertFalse(sized.bodyLimitExceeded)
        XCTAssertGreaterThanOrEqual(sized.body.capacity, length)
        XCTAssertLessThan(sized.body.capacity, length + 4096, "reserved once from content-length")
        let grown = try XCTUnwrap(arrived[undeclared])
        XCTAssertTrue(grown.body == body)
        XCTAssertEqual(sized.headers["content-length"], String(length), "the header is still passed on")
    }

    /// The reservation rule on its own: the declared length when it is a plain decimal number no
    /// larger than the limit, else nothing (the client's word must not make the server reserve
    /// more than it would keep).
    func testReservationFollowsOnlyAPlainLengthWithinTheLimit() {
        let limit = 50_000
        let cases: [(value: String, reserved: Bool)] = [
            ("40000", true), ("50000", true), ("50001", false), ("999999999999999999", false),
            ("9999999999999999999999", false), ("", false), ("-5", false), ("4e4", false), (" 400", false),
            ("0", false),
        ]
        for (value, reserved) in cases {
            let stream = HTTP2ServerSession.IncomingStream()
            let bytes = Array(value.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                stream.reserveBody(declaredLength: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!,
                                   bytes.count, limit: limit)
            }
            if reserved {
                XCTAssertGreaterThanOrEqual(stream.body.capacity, Int(value)!, value)
                XCTAssertLessThan(stream.body.capacity, Int(value)! + 4096, value)
            } else {
                XCTAssertEqual(stream.body.capacity, 0, "'\(value)' reserves nothing")
            }
            XCTAssertTrue(stream.body.isEmpty)
        }
    }
}
