/// Varints and a bounds-checked reader for ``UserFactsRecord``'s layouts (every version uses
/// the same integer encodings: LEB128 varints, signed ones zigzagged).
extension [UInt8] {
    package mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    package mutating func appendSigned(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// A span of milliseconds (version 3's date differences) in the largest unit that divides
    /// it exactly: days, minutes, seconds or milliseconds. Apple's periods keep the time of day
    /// (a month's renewal is a whole number of days in production, of minutes in the sandbox),
    /// so a 31-day expiry takes 2 bytes instead of 5. The first byte holds the unit (2 bits)
    /// and the low 5 bits of the zigzagged count, its top bit whether a varint of the rest
    /// follows: every Int64 fits (66 bits in all).
    package mutating func appendSpan(_ milliseconds: Int64) {
        let unit = SpanUnit.largest(dividing: milliseconds)
        let count = milliseconds / unit.milliseconds
        let zigzag = UInt64(bitPattern: (count << 1) ^ (count >> 63))
        let rest = zigzag >> 5
        append(UInt8(truncatingIfNeeded: zigzag & 0x1f) << 2 | UInt8(unit.rawValue) | (rest == 0 ? 0 : 0x80))
        if rest != 0 { appendVarint(rest) }
    }
}

/// The units of ``Swift/Array/appendSpan(_:)``, by the code the first byte stores.
package enum SpanUnit: UInt8 {
    case millisecond = 0, second, minute, day

    package static let all: [SpanUnit] = [.millisecond, .second, .minute, .day]

    package var milliseconds: Int64 {
        switch self {
        case .millisecond: 1
        case .second: 1_000
        case .minute: 60_000
        case .day: 86_400_000
        }
    }

    package static func largest(dividing milliseconds: Int64) -> SpanUnit {
        if milliseconds % 86_400_000 == 0 { return .day }
        if milliseconds % 60_000 == 0 { return .minute }
        return milliseconds % 1_000 == 0 ? .second : .millisecond
    }
}

/// A bounds-checked cursor over a record's bytes: anything that would read past the end, or a
/// varint longer than 64 bits, is ``UserFactsRecord/Malformed``, never a misread.
package struct RecordReader {
    package let bytes: UnsafeRawBufferPointer
    package var offset = 0

    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    package var isAtEnd: Bool { offset == bytes.count }

    package mutating func byte() throws(UserFactsRecord.Malformed) -> UInt8 {
        guard offset < bytes.count else { throw UserFactsRecord.Malformed() }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Most of a record's varints (flags, string references, enum indexes, counts) are one
    /// byte: that case is inlined into the decoder, a call-free compare and increment, and only
    /// longer ones (dates, numeric ids) go through the loop. It was ~40 instructions a call
    /// (callgrind, ~60 varints per record on the 1M x 3 set).
    @inline(__always)
    package mutating func varint() throws(UserFactsRecord.Malformed) -> UInt64 {
        guard offset < bytes.count else { throw UserFactsRecord.Malformed() }
        let first = bytes[offset]
        guard first >= 0x80 else {
            offset += 1
            return UInt64(first)
        }
        return try longVarint()
    }

    /// A varint of two or more bytes; running out of the record, or past 64 bits (ten bytes),
    /// is malformed.
    private mutating func longVarint() throws(UserFactsRecord.Malformed) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var index = offset
        while index < bytes.count, shift < 64 {
            let next = bytes[index]
            index += 1
            value |= UInt64(next & 0x7f) << shift
            if next < 0x80 {
                offset = index
                return value
            }
            shift += 7
        }
        throw UserFactsRecord.Malformed()
    }

    /// A span written by ``Swift/Array/appendSpan(_:)``; one whose count does not fit 64 bits,
    /// or whose milliseconds do not fit an Int64, is malformed.
    package mutating func span() throws(UserFactsRecord.Malformed) -> Int64 {
        let first = try byte()
        var zigzag = UInt64(first >> 2 & 0x1f)
        if first & 0x80 != 0 {
            let rest = try varint()
            guard rest < 1 << 59 else { throw UserFactsRecord.Malformed() }
            zigzag |= rest << 5
        }
        let count = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        let (milliseconds, overflow) = count.multipliedReportingOverflow(
            by: SpanUnit.all[Int(first & 3)].milliseconds)
        guard !overflow else { throw UserFactsRecord.Malformed() }
        return milliseconds
    }

    package mutating func signed() throws(UserFactsRecord.Malformed) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A count no larger than the bytes left could hold (one byte per item at least), so a
    /// corrupt count cannot make the decoder reserve gigabytes.
    package mutating func count() throws(UserFactsRecord.Malformed) -> Int {
        let value = try varint()
        guard value <= UInt64(bytes.count - offset) else { throw UserFactsRecord.Malformed() }
        return Int(value)
    }

    /// `length` bytes as UTF-8 (invalid sequences repaired, as every version wrote valid UTF-8).
    /// Copied in and validated by `String(unsafeUninitializedCapacity:)`, which repairs as
    /// `String(decoding:as:)` does at about two thirds of its cost for a record's short ids
    /// (131 against 202 instructions for 15 ASCII bytes, callgrind).
    package mutating func string(length: Int) throws(UserFactsRecord.Malformed) -> String {
        guard length <= bytes.count - offset else { throw UserFactsRecord.Malformed() }
        let source = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
        offset += length
        return String(unsafeUninitializedCapacity: length) { buffer in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
            return length
        }
    }

    package mutating func string() throws(UserFactsRecord.Malformed) -> String {
        try string(length: count())
    }
}
