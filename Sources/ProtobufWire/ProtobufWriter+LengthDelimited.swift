extension ProtobufWriter {
    /// Writes a length-delimited field whose content `body` appends to this same writer.
    ///
    /// Written even when `body` appends nothing: an empty element of a repeated message field is
    /// still an element. One byte is reserved for the length; if the content reaches 128 bytes
    /// the content is moved up (one `memmove` within the buffer) to make room for the longer
    /// prefix. Nested messages are usually short, so the move is rare and never allocates
    /// beyond the buffer's own growth.
    @inlinable
    public mutating func writeLengthDelimited(field: Int, _ body: (inout ProtobufWriter) -> Void) {
        writeTag(field: field, wireType: .lengthDelimited)
        let lengthIndex = bytes.count
        bytes.append(0)
        body(&self)
        precondition(bytes.count > lengthIndex, "a length-delimited body removed bytes it did not write")
        let length = UInt64(bytes.count - lengthIndex - 1)
        if length < 0x80 {
            bytes[lengthIndex] = UInt8(truncatingIfNeeded: length)
            return
        }
        let prefixSize = Self.varintSize(length)
        bytes.insert(contentsOf: repeatElement(0, count: prefixSize - 1), at: lengthIndex + 1)
        var remaining = length
        var index = lengthIndex
        while remaining >= 0x80 {
            bytes[index] = UInt8(truncatingIfNeeded: remaining) | 0x80
            remaining >>= 7
            index += 1
        }
        bytes[index] = UInt8(truncatingIfNeeded: remaining)
    }

    /// Writes `message` as an embedded message field, even if every field of it is default.
    ///
    /// Repeated message fields call this once per element; a singular message field is written
    /// when present (the caller's optional is non-nil), whatever its content.
    @inlinable
    public mutating func writeMessage<Message: ProtobufMessage>(_ message: Message, field: Int) {
        writeLengthDelimited(field: field) { message.encode(to: &$0) }
    }

    /// Writes repeated varint-encoded values in packed form (proto3's default for repeated
    /// scalars); writes nothing when `values` is empty.
    ///
    /// Callers map their element type to the varint they want on the wire, e.g.
    /// `UInt64(bitPattern: Int64(int32Value))` for int32.
    @inlinable
    public mutating func writePackedVarints(_ values: some Collection<UInt64>, field: Int) {
        guard !values.isEmpty else { return }
        writeLengthDelimited(field: field) { writer in
            for value in values {
                writer.writeVarint(value)
            }
        }
    }
}
