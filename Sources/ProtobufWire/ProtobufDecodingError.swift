import ErrorCodes

/// Why a byte sequence is not a valid protobuf encoding.
///
/// Every malformed input ends in one of these, never in a trap: the decoder reads bytes from the
/// network. ``code`` is for programs (a struct so codes can be added without breaking
/// `switch`es); ``message`` is for people and says what was wrong and where, as a byte offset
/// into the buffer the input was sliced from.
public struct ProtobufDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of malformation.
    public typealias Code = ErrorCode<ProtobufDecodingError>

    public var code: Code
    /// What was wrong, for logs and test failures; not for clients (it describes their bytes).
    public var message: String

    public var description: String { "ProtobufDecodingError.\(code): \(message)" }
}

extension ErrorCode<ProtobufDecodingError> {
    /// The input ends inside a value: a varint, a fixed-width value or a group.
    public static var truncated: Self { Self("truncated") }
    /// A varint longer than ten bytes, or one whose tenth byte overflows 64 bits.
    public static var malformedVarint: Self { Self("malformedVarint") }
    /// A length prefix claims more bytes than remain in the input.
    public static var lengthPastEnd: Self { Self("lengthPastEnd") }
    /// A tag whose low three bits are 6 or 7.
    public static var invalidWireType: Self { Self("invalidWireType") }
    /// A tag with field number 0, or a tag that does not fit in 32 bits.
    public static var invalidFieldNumber: Self { Self("invalidFieldNumber") }
    /// A string field whose bytes are not valid UTF-8 (proto3 requires it).
    public static var invalidUTF8: Self { Self("invalidUTF8") }
    /// An end-group tag without its start, a mismatched one, or groups nested too deeply.
    public static var malformedGroup: Self { Self("malformedGroup") }
}
