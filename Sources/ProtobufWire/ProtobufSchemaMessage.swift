/// A message whose codec follows from one list of its fields, rather than from a decoder and an
/// encoder that each restate every field's number and kind.
///
/// Stating each field once keeps the two directions from disagreeing: a number or wire type
/// changed in only one of them would still round-trip against ourselves and break against every
/// other runtime. The list is also the order fields are written in. protobuf-es describes its
/// messages the same way, as a field list read by one generic codec.
///
/// The generic codec costs a closure call and a key-path access per field, so messages on
/// CheckEntitlement's hot path keep hand-written `init(protobufBytes:)` and `encode(to:)`.
public protocol ProtobufSchemaMessage: ProtobufMessage {
    /// The message's fields, in the order they are written (ascending numbers, as protobuf's
    /// own runtimes write them).
    static var schema: [ProtobufSchemaField<Self>] { get }
}

extension ProtobufSchemaMessage {
    /// Decodes as a hand-written decoder does: a field whose number and wire type match the
    /// schema is read (the last occurrence of a singular field wins), anything else is skipped.
    public init(protobufBytes: ArraySlice<UInt8>) throws {
        self.init()
        let schema = Self.schema
        var reader = ProtobufReader(protobufBytes)
        while let field = try reader.nextField() {
            if let known = schema.first(where: { $0.number == field.number && $0.wireType == field.wireType }) {
                try known.read(&self, &reader)
            } else {
                try reader.skip(field)
            }
        }
    }

    /// Encodes every field in schema order, skipping defaults as the typed writers do.
    public func encode(to writer: inout ProtobufWriter) {
        for field in Self.schema {
            field.write(self, &writer)
        }
    }
}
