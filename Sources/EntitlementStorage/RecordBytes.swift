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

    /// Most of a record's varints (flags, string references, enum indexes, counts) are one
    /// byte: that case is inlined into the decoder, a call-free compare and increment, and only
    /// longer ones (dates, numeric ids) go through the loop. It was ~40 instructions a call
    /// (callgrind, ~60 varints per record on the 1M x 3 set).
    @inline(__always)
    mutating func varint() throws(UserFactsRecord.Malformed) -> UInt64 {
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
    /// Copied in and validated by `String(unsafeUninitializedCapacity:)`, which repairs as
    /// `String(decoding:as:)` does at about two thirds of its cost for a record's short ids
    /// (131 against 202 instructions for 15 ASCII bytes, callgrind).
    mutating func string(length: Int) throws(UserFactsRecord.Malformed) -> String {
        guard length <= bytes.count - offset else { throw UserFactsRecord.Malformed() }
        let source = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
        offset += length
        return String(unsafeUninitializedCapacity: length) { buffer in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
            return length
        }
    }

    mutating func string() throws(UserFactsRecord.Malformed) -> String {
        try string(length: count())
    }
}
