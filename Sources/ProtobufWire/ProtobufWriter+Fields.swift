/// Typed field writers with proto3 default-skipping: a field holding its type's default value
/// (0, false, "", no bytes) is omitted, because the reader yields the same default when the
/// field is absent and omitting it keeps messages short.
extension ProtobufWriter {
    /// Writes an int64 as its two's-complement bit pattern, which is all a uint64 varint is.
    @inlinable
    public mutating func writeInt64(_ value: Int64, field: Int) {
        writeUInt64(UInt64(bitPattern: value), field: field)
    }

    /// Writes an int32; a negative value is sign-extended to 64 bits and takes ten bytes, as
    /// the protobuf spec requires so that int32 and int64 stay wire-compatible.
    @inlinable
    public mutating func writeInt32(_ value: Int32, field: Int) {
        writeInt64(Int64(value), field: field)
    }

    @inlinable
    public mutating func writeUInt64(_ value: UInt64, field: Int) {
        guard value != 0 else { return }
        writeTag(field: field, wireType: .varint)
        writeVarint(value)
    }

    @inlinable
    public mutating func writeUInt32(_ value: UInt32, field: Int) {
        writeUInt64(UInt64(value), field: field)
    }

    /// Writes a sint64: zigzag-encoded so small negative numbers stay short.
    @inlinable
    public mutating func writeSInt64(_ value: Int64, field: Int) {
        writeUInt64(UInt64(bitPattern: (value << 1) ^ (value >> 63)), field: field)
    }

    /// Writes a sint32: zigzag-encoded so small negative numbers stay short.
    @inlinable
    public mutating func writeSInt32(_ value: Int32, field: Int) {
        writeSInt64(Int64(value), field: field)
    }

    @inlinable
    public mutating func writeBool(_ value: Bool, field: Int) {
        guard value else { return }
        writeTag(field: field, wireType: .varint)
        bytes.append(1)
    }

    /// Writes an enum by its number; proto3 enums are open, so any Int32 is allowed.
    @inlinable
    public mutating func writeEnum(_ rawValue: Int32, field: Int) {
        writeInt32(rawValue, field: field)
    }

    /// Writes an enum modelled as a `RawRepresentable` struct over its Int32 number.
    @inlinable
    public mutating func writeEnum<Enum: RawRepresentable>(_ value: Enum, field: Int)
    where Enum.RawValue == Int32 {
        writeInt32(value.rawValue, field: field)
    }

    @inlinable
    public mutating func writeString(_ value: String, field: Int) {
        let utf8 = value.utf8
        guard !utf8.isEmpty else { return }
        writeTag(field: field, wireType: .lengthDelimited)
        writeVarint(UInt64(utf8.count))
        // A native string's bytes are copied straight from its storage; the generic append
        // retained and released the string once more per field.
        let copied: Void? = utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: utf8) }
    }

    @inlinable
    public mutating func writeBytes(_ value: some Collection<UInt8>, field: Int) {
        guard !value.isEmpty else { return }
        writeTag(field: field, wireType: .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Writes a fixed32 (or, by bit pattern, an sfixed32 or float).
    @inlinable
    public mutating func writeFixed32(_ value: UInt32, field: Int) {
        guard value != 0 else { return }
        writeTag(field: field, wireType: .fixed32)
        writeRawFixed32(value)
    }

    /// Writes a fixed64 (or, by bit pattern, an sfixed64 or double).
    @inlinable
    public mutating func writeFixed64(_ value: UInt64, field: Int) {
        guard value != 0 else { return }
        writeTag(field: field, wireType: .fixed64)
        writeRawFixed64(value)
    }
}
