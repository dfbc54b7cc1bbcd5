/// The tag that precedes every value in a message: which field, and how its value is laid out.
///
/// Message decoders switch on `(field.number, field.wireType)` together. Matching the wire type
/// as well as the number is what keeps a decoder safe against a peer that sends a known field
/// number with an unexpected layout: such a field falls through to ``ProtobufReader/skip(_:)``
/// and is ignored like an unknown field, as protobuf's own runtimes do.
public struct ProtobufField: Sendable, Hashable {
    /// The field number from the schema: 1 through 536,870,911 (2^29 - 1).
    public var number: Int
    public var wireType: ProtobufWireType

    public init(number: Int, wireType: ProtobufWireType) {
        self.number = number
        self.wireType = wireType
    }

    /// The largest field number a tag can carry: 32-bit tag minus three wire-type bits.
    public static let maximumNumber = (1 << 29) - 1
}
