/// Reads protobuf wire encoding from a byte slice, one field at a time.
///
/// The loop every message decoder runs:
///
/// ```swift
/// var reader = ProtobufReader(protobufBytes)
/// while let field = try reader.nextField() {
///     switch (field.number, field.wireType) {
///     case (1, .lengthDelimited): userID = try reader.readString()
///     case (3, .varint): atMs = try reader.readInt64()
///     default: try reader.skip(field)
///     }
/// }
/// ```
///
/// The value readers are positional: each reads the value that starts where the last tag ended,
/// so a decoder must match the wire type before calling one (the `switch` above does). Every
/// read checks the bytes it needs are present first; malformed input throws
/// ``ProtobufDecodingError`` and never traps, and no read allocates more than the input holds,
/// because a length prefix is checked against the remaining bytes before anything is sliced.
public struct ProtobufReader: Sendable {
    @usableFromInline internal let buffer: ArraySlice<UInt8>
    @usableFromInline internal var index: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        buffer = bytes
        index = bytes.startIndex
    }

    /// Whether every byte has been consumed.
    @inlinable
    public var isAtEnd: Bool { index >= buffer.endIndex }

    /// Reads the next tag, or returns nil at the end of the input.
    ///
    /// Throws for wire types 6 and 7, field number 0, and tags that do not fit in 32 bits.
    /// Group tags (wire types 3 and 4) are returned like any other; ``skip(_:)`` handles them.
    public mutating func nextField() throws -> ProtobufField? {
        guard !isAtEnd else { return nil }
        let tagOffset = index
        let tag = try readVarint()
        guard tag <= UInt64(UInt32.max) else {
            throw decodingError(.invalidFieldNumber, "tag \(tag) does not fit in 32 bits", at: tagOffset)
        }
        guard let wireType = ProtobufWireType(rawValue: UInt8(truncatingIfNeeded: tag & 7)) else {
            throw decodingError(.invalidWireType, "invalid wire type \(tag & 7)", at: tagOffset)
        }
        let number = Int(tag >> 3)
        guard number != 0 else {
            throw decodingError(.invalidFieldNumber, "field number 0", at: tagOffset)
        }
        return ProtobufField(number: number, wireType: wireType)
    }

    /// Reads a base-128 varint of at most ten bytes.
    @inlinable
    public mutating func readVarint() throws -> UInt64 {
        // Fast path: one byte covers small numbers, booleans, enums and most tags.
        if index < buffer.endIndex, buffer[index] < 0x80 {
            defer { index += 1 }
            return UInt64(buffer[index])
        }
        return try readMultiByteVarint()
    }

    @usableFromInline
    internal mutating func readMultiByteVarint() throws -> UInt64 {
        let start = index
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while index < buffer.endIndex {
            let byte = buffer[index]
            index += 1
            if shift == 63 {
                // The tenth byte holds only bit 63: more than that is an 11th byte or overflow.
                guard byte & 0x80 == 0 else {
                    throw decodingError(.malformedVarint, "varint longer than 10 bytes", at: start)
                }
                guard byte <= 1 else {
                    throw decodingError(.malformedVarint, "varint overflows 64 bits", at: start)
                }
                return result | UInt64(byte) << 63
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                return result
            }
            shift += 7
        }
        throw decodingError(.truncated, "input ends inside a varint", at: start)
    }

    /// Reads four little-endian bytes.
    public mutating func readRawFixed32() throws -> UInt32 {
        try readLittleEndian("fixed32")
    }

    /// Reads eight little-endian bytes.
    public mutating func readRawFixed64() throws -> UInt64 {
        try readLittleEndian("fixed64")
    }

    /// Reads a `Value`'s width of little-endian bytes, byte by byte, so the input needs no
    /// alignment.
    private mutating func readLittleEndian<Value: FixedWidthInteger & UnsignedInteger>(
        _ what: String
    ) throws -> Value {
        let width = Value.bitWidth / 8
        let start = try consume(width, what)
        var value: Value = 0
        for offset in (0..<width).reversed() {
            value = value << 8 | Value(buffer[start + offset])
        }
        return value
    }

    /// Reads a varint length and returns that many bytes as a slice of the input, without
    /// copying.
    public mutating func readLengthDelimited() throws -> ArraySlice<UInt8> {
        let start = index
        let length = try readVarint()
        // Compare before converting: a huge length must neither trap in Int(_:) nor allocate.
        guard length <= UInt64(buffer.endIndex - index) else {
            throw decodingError(.lengthPastEnd,
                        "length \(length) exceeds the \(buffer.endIndex - index) bytes remaining",
                        at: start)
        }
        let end = index + Int(length)
        defer { index = end }
        return buffer[index..<end]
    }

    /// Advances past `count` bytes, returning where they start.
    internal mutating func consume(_ count: Int, _ what: String) throws -> Int {
        guard buffer.endIndex - index >= count else {
            throw decodingError(.truncated,
                        "\(what) needs \(count) bytes, \(buffer.endIndex - index) remain",
                        at: index)
        }
        defer { index += count }
        return index
    }

    @usableFromInline
    internal func decodingError(
        _ code: ProtobufDecodingError.Code, _ message: String, at offset: Int
    ) -> ProtobufDecodingError {
        ProtobufDecodingError(code: code, message: "\(message) at byte \(offset)")
    }
}
