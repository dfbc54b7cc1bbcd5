import ProtobufWire

/// A response message already framed for the wire (5-byte gRPC prefix + protobuf), encoded
/// straight into one buffer so the hot path makes no second copy.
public struct RPCResponseBody: Sendable {
    public var framed: [UInt8]

    public init<M: ProtobufMessage>(_ message: M) {
        var writer = ProtobufWriter()
        writer.bytes.reserveCapacity(128)
        writer.bytes.append(contentsOf: repeatElement(0, count: 5))
        message.encode(to: &writer)
        self.init(patchingPrefixOf: writer)
    }

    /// A body framed before, handed out again as it is (a kept answer).
    public init(framed: [UInt8]) {
        self.framed = framed
    }

    /// `framed`'s message with `message`'s fields appended: protobuf reads two messages' bytes
    /// one after the other as their merge, so a kept encoding can be finished with the fields
    /// that change per call. The result is the bytes encoding the merged message would give
    /// when `message`'s fields come last in field order.
    public init<M: ProtobufMessage>(_ framed: [UInt8], appending message: M) {
        var writer = ProtobufWriter()
        writer.bytes.reserveCapacity(framed.count + 16)
        writer.bytes.append(contentsOf: framed)
        message.encode(to: &writer)
        self.init(patchingPrefixOf: writer)
    }

    /// Writes the message's length into the prefix's last four bytes.
    private init(patchingPrefixOf writer: consuming ProtobufWriter) {
        // The prefix is patched in the writer's own buffer: a copy taken first would share it,
        // and the first patch would then copy the whole message.
        let length = writer.bytes.count - 5
        writer.bytes[1] = UInt8(truncatingIfNeeded: length >> 24)
        writer.bytes[2] = UInt8(truncatingIfNeeded: length >> 16)
        writer.bytes[3] = UInt8(truncatingIfNeeded: length >> 8)
        writer.bytes[4] = UInt8(truncatingIfNeeded: length)
        framed = writer.bytes
    }
}
