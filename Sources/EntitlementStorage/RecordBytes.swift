/// Varints and a bounds-checked reader for ``UserFactsRecord``'s layouts (every version uses
/// the same integer encodings: LEB128 varints, signed ones zigzagged).
extension [UInt8] {
    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    mutating func appendSigned(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }
}

/// A bounds-checked cursor over a record's bytes: anything that would read past the end, or a
/// varint longer than 64 bits, is ``UserFactsRecord/Malformed``, never a misread.
struct RecordReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() throws(UserFactsRecord.Malformed) -> UInt8 {
        guard offset < bytes.count else { throw UserFactsRecord.Malformed() }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws(UserFactsRecord.Malformed) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw UserFactsRecord.Malformed() }
            value |= UInt64(next & 0x7f) << shift
            if next < 0x80 { return value }
            shift += 7
        }
    }

    mutating func signed() throws(UserFactsRecord.Malformed) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A count no larger than the bytes left could hold (one byte per item at least), so a
    /// corrupt count cannot make the decoder reserve gigabytes.
    mutating func count() throws(UserFactsRecord.Malformed) -> Int {
        let value = try varint()
        guard value <= UInt64(bytes.count - offset) else { throw UserFactsRecord.Malformed() }
        return Int(value)
    }

    /// `length` bytes as UTF-8 (invalid sequences repaired, as every version wrote valid UTF-8).
    mutating func string(length: Int) throws(UserFactsRecord.Malformed) -> String {
        guard length <= bytes.count - offset else { throw UserFactsRecord.Malformed() }
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
    }

    mutating func string() throws(UserFactsRecord.Malformed) -> String {
        try string(length: count())
    }
}
