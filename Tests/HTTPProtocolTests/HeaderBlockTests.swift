internal import CNGHTTP2
@testable import HTTP2
import HTTPCore
import XCTest

/// ``HeaderBlock/withNV(status:_:_:)`` hands nghttp2 a prepared block for the two lists every
/// gRPC answer sends: the fields must be exactly those the general path lays out, and any
/// other list, however close, must take the general path.
final class HeaderBlockTests: XCTestCase {
    /// The (name, value) pairs `withNV` passes to nghttp2, as text.
    func fields(status: Int?, _ headers: HTTPHeaders) -> [String] {
        HeaderBlock.withNV(status: status, headers) { nva, count in
            (0..<count).map { index in
                let field = nva[index]
                let name = String(decoding: UnsafeBufferPointer(start: field.name, count: field.namelen), as: UTF8.self)
                let value = String(decoding: UnsafeBufferPointer(start: field.value, count: field.valuelen),
                                   as: UTF8.self)
                return "\(name): \(value) [\(field.flags)]"
            }
        }
    }

    func testTheTwoGRPCListsArePreparedAndSayWhatTheyAreAsked() {
        XCTAssertNotNil(PreparedBlocks.shared.block(status: 200, ["content-type": "application/grpc"]))
        XCTAssertNotNil(PreparedBlocks.shared.block(status: nil, ["grpc-status": "0"]))
        XCTAssertEqual(fields(status: 200, ["content-type": "application/grpc"]),
                       [":status: 200 [0]", "content-type: application/grpc [0]"])
        XCTAssertEqual(fields(status: nil, ["grpc-status": "0"]), ["grpc-status: 0 [0]"])
        // Strings made at run time (not literals) are recognised by their bytes.
        let built = HTTPHeaders([(name: String("content-" + "type"), value: String("application/" + "grpc"))])
        XCTAssertNotNil(PreparedBlocks.shared.block(status: 200, built))
    }

    func testEveryOtherListTakesTheGeneralPath() {
        let others: [(Int?, HTTPHeaders, [String])] = [
            (201, ["content-type": "application/grpc"], [":status: 201 [0]", "content-type: application/grpc [0]"]),
            (nil, ["content-type": "application/grpc"], ["content-type: application/grpc [0]"]),
            (200, ["content-type": "application/grpc+proto"],
             [":status: 200 [0]", "content-type: application/grpc+proto [0]"]),
            (200, ["content-type": "application/grpC"], [":status: 200 [0]", "content-type: application/grpC [0]"]),
            (200, ["content-typf": "application/grpc"], [":status: 200 [0]", "content-typf: application/grpc [0]"]),
            (200, HTTPHeaders([(name: "content-type", value: "application/grpc"), (name: "x", value: "y")]),
             [":status: 200 [0]", "content-type: application/grpc [0]", "x: y [0]"]),
            (200, [:], [":status: 200 [0]"]),
            (nil, ["grpc-status": "1"], ["grpc-status: 1 [0]"]),
            (nil, ["grpc-status": "00"], ["grpc-status: 00 [0]"]),
            (200, ["grpc-status": "0"], [":status: 200 [0]", "grpc-status: 0 [0]"]),
            (nil, HTTPHeaders([(name: "grpc-status", value: "0"), (name: "grpc-message", value: "m")]),
             ["grpc-status: 0 [0]", "grpc-message: m [0]"]),
        ]
        for (status, headers, expected) in others {
            let label = "\(String(describing: status)) \(expected)"
            XCTAssertNil(PreparedBlocks.shared.block(status: status, headers), label)
            XCTAssertEqual(fields(status: status, headers), expected)
        }
    }
}
