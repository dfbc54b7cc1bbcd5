import SeededRandom
@testable import AppStore
import XCTest

/// ``AppleJSONParser/integer()``: the unchecked first nineteen digits and the checked rest give
/// the value, the declines and the end position a digit-by-digit checked parse gives.
final class JSONIntegerScanTests: XCTestCase {
    func testDigitRunsOfEveryLengthAgreeWithACheckedParse() {
        var random = SplitMix64(seed: 14)
        var cases = ["0", "-0", "00", "01", "-01", "9", "-", "", "18446744073709551615", "18446744073709551616",
                     "9223372036854775807", "-9223372036854775808", "-9223372036854775809", "99999999999999999999",
                     "10000000000000000000", "1.5", "1e3", "1E3", "12x", "1000000595277992,"]
        for length in 1...24 {
            for _ in 0..<40 {
                var digits = (0..<length).map { _ in Character(String(random.next() % 10)) }
                if random.next() % 4 == 0 { digits[0] = "9" }
                let tail = [",", "}", ".5", "e2", "", " "][Int(random.next() % 6)]
                cases.append((random.next() % 3 == 0 ? "-" : "") + String(digits) + tail)
            }
        }
        for text in cases {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                var parser = AppleJSONParser(bytes: buffer)
                let got = parser.integer()
                let want = Self.checkedParse(bytes)
                XCTAssertEqual(got.map(Self.describe), want.map { "\($0.value)" }, text)
                if want != nil { XCTAssertEqual(parser.index, want?.end, text) }
            }
        }
    }

    static func describe(_ value: AppleJSONValue) -> String {
        guard case .number(let number) = value else { return "not a number" }
        switch number.storage {
        case .unsigned(let value): return "\(value)"
        case .signed(let value): return "\(value)"
        default: return "other"
        }
    }

    /// The integer grammar with overflow checked at every digit: its value as text and where it ends.
    static func checkedParse(_ bytes: [UInt8]) -> (value: String, end: Int)? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            magnitude = sum
            index += 1
        }
        guard index > start, index - start == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            return nil
        }
        if !negative { return ("\(magnitude)", index) }
        if magnitude <= UInt64(Int64.max) { return ("\(-Int64(magnitude))", index) }
        if magnitude == UInt64(Int64.max) + 1 { return ("\(Int64.min)", index) }
        return nil
    }
}
