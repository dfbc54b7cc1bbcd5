/// Appends protobuf wire encoding to one growing byte buffer.
///
/// The encoder makes a single pass and allocates nothing but ``bytes`` itself. Length-delimited
/// values whose size is not known up front (nested messages, packed fields) reserve one byte for
/// their length, encode in place, and widen the prefix afterwards only if the value turned out
/// to be 128 bytes or longer. That beats encoding nested messages into a temporary writer (one
/// allocation and one copy per nested message) and computing sizes first (every message encoded
/// twice); see `ProtobufWriter+LengthDelimited.swift`.
///
/// The typed field writers in `ProtobufWriter+Fields.swift` follow proto3 presence rules: a
/// field at its default value (0, false, empty) is not written at all. The primitives here write
/// unconditionally.
public struct ProtobufWriter: Sendable {
    /// The encoding so far. Public and settable so a caller can start from a prefix it owns (a
    /// gRPC frame header, say) and take the buffer without a copy.
    public var bytes: [UInt8]

    public init() {
        bytes = []
    }

    /// A writer whose buffer already has room for `capacity` bytes, for callers that can guess
    /// the size and want to skip the buffer's early growth steps.
    public init(reservingCapacity capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Writes `value` as a base-128 varint: seven bits a byte, least significant group first.
    ///
    /// Always inlined: most varints (tags, lengths, small numbers) are one byte, and a call per
    /// varint cost more than the one `append` it made.
    @inlinable @inline(__always)
    public mutating func writeVarint(_ value: UInt64) {
        if value < 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value))
        } else {
            writeLongVarint(value)
        }
    }

    /// The loop for varints of two bytes or more, kept apart from the one-byte path so that
    /// path stays small where it is inlined. `@inlinable` because the inlinable `writeVarint`
    /// calls it from other modules; whether the loop itself is inlined is the optimizer's call
    /// (measured as it is: 9801a95).
    @inlinable
    mutating func writeLongVarint(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: remaining))
    }

    /// Writes a tag: the field number shifted past the three wire-type bits.
    @inlinable @inline(__always)
    public mutating func writeTag(field: Int, wireType: ProtobufWireType) {
        precondition(field >= 1 && field <= ProtobufField.maximumNumber,
                     "protobuf field number \(field) is outside 1...\(ProtobufField.maximumNumber)")
        writeVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    /// Writes four little-endian bytes.
    @inlinable
    public mutating func writeRawFixed32(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    /// Writes eight little-endian bytes.
    @inlinable
    public mutating func writeRawFixed64(_ value: UInt64) {
        writeRawFixed32(UInt32(truncatingIfNeeded: value))
        writeRawFixed32(UInt32(truncatingIfNeeded: value >> 32))
    }

    /// The number of bytes ``writeVarint(_:)`` uses for `value`: 1 through 10.
    @inlinable
    public static func varintSize(_ value: UInt64) -> Int {
        // Bits needed, rounded up to whole 7-bit groups; zero still takes one byte.
        let bits = 64 - (value | 1).leadingZeroBitCount
        return (bits + 6) / 7
    }
}
