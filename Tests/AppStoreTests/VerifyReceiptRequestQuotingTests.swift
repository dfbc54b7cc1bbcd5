@testable import AppStore
import XCTest

/// ``VerifyReceiptRequest/appendQuoted(_:to:)``'s eight-byte scan finds a byte to escape
/// wherever it stands: in a word, in the tail, first or last.
final class VerifyReceiptRequestQuotingTests: XCTestCase {
    func testEveryPositionOfEveryEscapedByteAgreesWithEscapingByteByByte() {
        let plain = Array("MIIT+/abcdefghijklmnopqrstuvwxyz0123456789=".utf8)
        let specials: [[UInt8]] = [[0x22], [0x5C], [0x0A], [0x0D], [0x09], [0x01], [0x1F], [0x00], Array("é".utf8)]
        for length in 0...plain.count {
            let base = Array(plain.prefix(length))
            XCTAssertEqual(VerifyReceiptRequest.quoted(String(decoding: base, as: UTF8.self)), Self.quoted(base))
            for special in specials {
                for position in 0...length {
                    let bytes = Array(base[..<position]) + special + Array(base[position...])
                    let string = String(decoding: bytes, as: UTF8.self)
                    XCTAssertEqual(VerifyReceiptRequest.quoted(string), Self.quoted(bytes), "\(bytes)")
                }
            }
        }
    }

    /// The JSON string literal the request body holds, built one byte at a time.
    static func quoted(_ bytes: [UInt8]) -> String {
        var out = Array("\"".utf8)
        for byte in bytes {
            switch byte {
            case 0x22: out += Array("\\\"".utf8)
            case 0x5C: out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0..<0x20: out += Array(("\\u00" + String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)).utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out + Array("\"".utf8), as: UTF8.self)
    }
}
