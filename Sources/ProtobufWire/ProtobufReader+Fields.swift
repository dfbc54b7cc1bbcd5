/// Typed value readers. Each assumes the tag just read had the matching wire type.
extension ProtobufReader {
    @inlinable
    public mutating func readInt64() throws -> Int64 {
        Int64(bitPattern: try readVarint())
    }

    /// Reads an int32, keeping the low 32 bits as the spec says; this is what makes the
    /// ten-byte sign-extended encoding of a negative int32 decode to the same negative number.
    @inlinable
    public mutating func readInt32() throws -> Int32 {
        Int32(truncatingIfNeeded: try readVarint())
    }

    @inlinable
    public mutating func readUInt64() throws -> UInt64 {
        try readVarint()
    }

    @inlinable
    public mutating func readUInt32() throws -> UInt32 {
        UInt32(truncatingIfNeeded: try readVarint())
    }

    /// Reads a zigzag-encoded sint64.
    @inlinable
    public mutating func readSInt64() throws -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// Reads a zigzag-encoded sint32.
    @inlinable
    public mutating func readSInt32() throws -> Int32 {
        Int32(truncatingIfNeeded: try readSInt64())
    }

    /// Reads a bool: any non-zero varint is true, as protobuf's runtimes read it.
    @inlinable
    public mutating func readBool() throws -> Bool {
        try readVarint() != 0
    }

    /// Reads an enum's number. Proto3 enums are open, so an unknown number is kept as is.
    @inlinable
    public mutating func readEnum() throws -> Int32 {
        try readInt32()
    }

    public mutating func readFixed32() throws -> UInt32 {
        try readRawFixed32()
    }

    public mutating func readFixed64() throws -> UInt64 {
        try readRawFixed64()
    }

    /// Reads a string field, rejecting bytes that are not valid UTF-8 as proto3 requires
    /// (repairing them would hand the caller a different string than the peer sent).
    public mutating func readString() throws -> String {
        let start = index
        let bytes = try readLengthDelimited()
        // Decoded with repair, then compared with the input: repair puts U+FFFD (EF BF BD, a
        // valid sequence) where the input had an invalid one, so the bytes come out unchanged
        // exactly when the input was valid UTF-8. Same verdict as String(validating:), which
        // looked up generic metadata on every call (a request's strings pass through here).
        let valid: Bool
        let string: String
        (valid, string) = bytes.withUnsafeBufferPointer { input in
            var decoded = String(decoding: input, as: UTF8.self)
            let same = decoded.withUTF8 { output in Self.sameBytes(output, input) }
            return (same, decoded)
        }
        guard valid else {
            throw decodingError(.invalidUTF8, "string field is not valid UTF-8", at: start)
        }
        return string
    }

    /// Whether `a` and `b` hold the same bytes, compared 32 at a time: `elementsEqual` stepped
    /// one byte per iteration, which made a 300 KB receipt string a quarter of SubmitReceipt's CPU.
    static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let left = a.baseAddress.map(UnsafeRawPointer.init),
              let right = b.baseAddress.map(UnsafeRawPointer.init) else { return true }  // both empty
        let count = a.count
        var offset = 0
        while offset + 32 <= count {
            var difference: UInt64 = 0
            for word in stride(from: offset, to: offset + 32, by: 8) {
                difference |= left.loadUnaligned(fromByteOffset: word, as: UInt64.self)
                    ^ right.loadUnaligned(fromByteOffset: word, as: UInt64.self)
            }
            guard difference == 0 else { return false }
            offset += 32
        }
        while offset < count {
            guard a[offset] == b[offset] else { return false }
            offset += 1
        }
        return true
    }

    /// Reads a bytes field into its own array (the input buffer is not retained).
    public mutating func readBytes() throws -> [UInt8] {
        Array(try readLengthDelimited())
    }

    /// Reads an embedded message.
    public mutating func readMessage<Message: ProtobufMessage>(
        _ type: Message.Type = Message.self
    ) throws -> Message {
        try Message(protobufBytes: readLengthDelimited())
    }

    /// Reads an embedded message into an existing value with protobuf merge semantics, for a
    /// singular message field that appears more than once: scalars in the later occurrence
    /// win, repeated fields append, nested messages merge recursively.
    ///
    /// Implemented by decoding the re-encoded existing value followed by the new bytes, which
    /// the protobuf spec defines as equivalent to merging. It costs an encode, so decoders call
    /// it only for the second and later occurrences.
    public mutating func mergeMessage<Message: ProtobufMessage>(into message: inout Message) throws {
        let additional = try readLengthDelimited()
        var combined = message.protobufBytes()
        combined.append(contentsOf: additional)
        message = try Message(protobufBytes: combined[...])
    }

    /// Reads one length-delimited run of packed scalars, appending each to `elements`.
    ///
    /// Repeated scalar fields may arrive packed (one length-delimited run) or unpacked (one tag
    /// per element), even mixed in one message, and a decoder must accept both:
    ///
    /// ```swift
    /// case (4, .varint): values.append(try reader.readInt64())
    /// case (4, .lengthDelimited): try reader.readPacked(into: &values) { try $0.readInt64() }
    /// ```
    ///
    /// Every element takes at least one byte, so `elements` grows by no more than the input's
    /// length; an element cut off at the end of the run throws `.truncated`.
    public mutating func readPacked<Element>(
        into elements: inout [Element],
        _ readElement: (inout ProtobufReader) throws -> Element
    ) throws {
        var packed = ProtobufReader(try readLengthDelimited())
        while !packed.isAtEnd {
            elements.append(try readElement(&packed))
        }
    }
}
