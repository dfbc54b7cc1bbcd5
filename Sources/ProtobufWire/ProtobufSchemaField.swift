/// One field of a ``ProtobufSchemaMessage``: its number and wire type, and how its value moves
/// between the wire and the stored property that holds it.
///
/// Made only by the factories below, one per field kind, each pairing a ``ProtobufReader`` read
/// with the ``ProtobufWriter`` write of the same kind, so a message cannot read one kind and
/// write another.
public struct ProtobufSchemaField<Message>: Sendable {
    let number: Int
    let wireType: ProtobufWireType
    let read: @Sendable (inout Message, inout ProtobufReader) throws -> Void
    let write: @Sendable (Message, inout ProtobufWriter) -> Void
}

extension ProtobufSchemaField {
    public static func string(_ number: Int, _ property: WritableKeyPath<Message, String> & Sendable) -> Self {
        scalar(number, .lengthDelimited, property, { try $0.readString() }, { $0.writeString($1, field: $2) })
    }

    public static func int64(_ number: Int, _ property: WritableKeyPath<Message, Int64> & Sendable) -> Self {
        scalar(number, .varint, property, { try $0.readInt64() }, { $0.writeInt64($1, field: $2) })
    }

    public static func int32(_ number: Int, _ property: WritableKeyPath<Message, Int32> & Sendable) -> Self {
        scalar(number, .varint, property, { try $0.readInt32() }, { $0.writeInt32($1, field: $2) })
    }

    public static func bool(_ number: Int, _ property: WritableKeyPath<Message, Bool> & Sendable) -> Self {
        scalar(number, .varint, property, { try $0.readBool() }, { $0.writeBool($1, field: $2) })
    }

    /// A field whose value is read and written whole by one reader and one writer method.
    private static func scalar<Value>(
        _ number: Int, _ wireType: ProtobufWireType, _ property: WritableKeyPath<Message, Value> & Sendable,
        _ readValue: @escaping @Sendable (inout ProtobufReader) throws -> Value,
        _ writeValue: @escaping @Sendable (inout ProtobufWriter, Value, Int) -> Void
    ) -> Self {
        Self(number: number, wireType: wireType,
             read: { message, reader in message[keyPath: property] = try readValue(&reader) },
             write: { message, writer in writeValue(&writer, message[keyPath: property], number) })
    }

    /// An enum field; unknown numbers are kept, as proto3's open enums require.
    public static func enumeration<Enum: ProtobufEnum>(
        _ number: Int, _ property: WritableKeyPath<Message, Enum> & Sendable
    ) -> Self {
        scalar(number, .varint, property, { Enum(rawValue: try $0.readEnum()) }, { $0.writeEnum($1, field: $2) })
    }

    /// A singular message field: written when present, even if every field of it is default.
    ///
    /// A later occurrence replaces an earlier one rather than merging into it (see
    /// ``ProtobufReader/mergeMessage(into:)``): our peers send each message field once, and
    /// replacing spares the merge's re-encode.
    public static func message<Nested: ProtobufMessage>(
        _ number: Int, _ property: WritableKeyPath<Message, Nested?> & Sendable
    ) -> Self {
        Self(number: number, wireType: .lengthDelimited,
             read: { message, reader in message[keyPath: property] = try reader.readMessage(Nested.self) },
             write: { message, writer in
                 if let nested = message[keyPath: property] {
                     writer.writeMessage(nested, field: number)
                 }
             })
    }

    /// A repeated message field: one length-delimited element per entry, empty ones included.
    public static func repeatedMessage<Element: ProtobufMessage>(
        _ number: Int, _ property: WritableKeyPath<Message, [Element]> & Sendable
    ) -> Self {
        Self(number: number, wireType: .lengthDelimited,
             read: { message, reader in message[keyPath: property].append(try reader.readMessage()) },
             write: { message, writer in
                 for element in message[keyPath: property] {
                     writer.writeMessage(element, field: number)
                 }
             })
    }
}
