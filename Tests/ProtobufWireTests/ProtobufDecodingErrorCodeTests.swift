import ProtobufWire
import XCTest

/// A code is its name (``ErrorCode``): each must keep the name logs have always shown, and no
/// two may share one, or a caller's `switch` would take one malformation for another.
final class ProtobufDecodingErrorCodeTests: XCTestCase {
    private let codes: [ProtobufDecodingError.Code] = [
        .truncated, .malformedVarint, .lengthPastEnd, .invalidWireType, .invalidFieldNumber, .invalidUTF8,
        .malformedGroup,
    ]

    func testEachCodeShowsItsName() {
        XCTAssertEqual(codes.map(\.description), [
            "truncated", "malformedVarint", "lengthPastEnd", "invalidWireType", "invalidFieldNumber", "invalidUTF8",
            "malformedGroup",
        ])
    }

    func testEachCodeEqualsOnlyItself() {
        for (i, code) in codes.enumerated() {
            for (j, other) in codes.enumerated() {
                XCTAssertEqual(code == other, i == j, "\(code) against \(other)")
            }
        }
        XCTAssertEqual(Set(codes).count, codes.count)
    }

    func testTheErrorNamesItsCode() {
        // Field 9, length-delimited, claiming five bytes where two remain.
        XCTAssertThrowsError(try Scalars(protobufBytes: [0x4a, 0x05, 0x61, 0x62])) { error in
            let description = "\(error)"
            XCTAssertTrue(description.hasPrefix("ProtobufDecodingError.lengthPastEnd: "), description)
        }
    }
}
