/// An id that is usually a decimal number, as Apple's are: held as the number when its text is
/// exactly that number's decimal form (1-19 digits, no leading zero, below 2^64), otherwise as
/// the text, so it reads back byte for byte either way.
///
/// Why: Apple's 16-digit ids are one byte longer than the 15 a Swift string keeps inline, so
/// each is a heap object. A facts cache of 100,000 users held three per user (web order line
/// item ids), and a miss over a million users allocated three and freed an evicted user's
/// three cold ones: +2,300 instructions and +7.8 last-level cache misses per uniform
/// CheckEntitlement (callgrind, 1M x 3 set with Apple-shaped web order ids).
///
/// Equal texts always give equal values (a canonical number has one spelling, and only it is
/// held as a number), so equality and hashing of the value are those of the text.
@usableFromInline
enum IDText: Sendable, Hashable {
    case number(UInt64)
    case text(String)

    @inlinable
    init(_ text: String) {
        if let number = Self.number(text) {
            self = .number(number)
        } else {
            self = .text(text)
        }
    }

    @inlinable
    var text: String {
        switch self {
        case let .number(value): Self.decimal(value)
        case let .text(text): text
        }
    }

    /// `String(value)`, written backwards into the string's own buffer: the generic integer
    /// printing costs ~1,200 instructions, and the writer reads a transaction's id about twice
    /// per write (to bind it, to encode the user's record).
    @usableFromInline
    static func decimal(_ value: UInt64) -> String {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        return String(unsafeUninitializedCapacity: digits) { buffer in
            var value = value
            for index in stride(from: digits - 1, through: 0, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            return digits
        }
    }

    /// The value whose `String(value)` is exactly `text`, if any.
    @inlinable
    static func number(_ text: String) -> UInt64? {
        var text = text
        return text.withUTF8 { bytes -> UInt64? in
            guard (1...19).contains(bytes.count), bytes[0] != UInt8(ascii: "0") || bytes.count == 1 else {
                return nil
            }
            var value: UInt64 = 0
            for byte in bytes {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                guard !overflow, !carry else { return nil }
                value = sum
            }
            return value
        }
    }
}
