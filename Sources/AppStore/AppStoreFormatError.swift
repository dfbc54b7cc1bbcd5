import ErrorCodes

/// Why bytes from Apple could not be read; the description names the field at fault.
///
/// Apple's payloads drift (numbers as strings, objects for arrays), so this is raised only for
/// what no tolerant reading can save: bytes that are not JSON, a missing identity field, a value
/// of a type that cannot mean anything for its field. The field path ("receipt.in_app[2].
/// purchase_date_ms") lets an operator find the offending value in a captured body.
public struct AppStoreFormatError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What kind of mistake; extensible without breaking callers that switch on it.
    public typealias Code = ErrorCode<AppStoreFormatError>

    public var code: Code
    /// The dotted path of the field at fault ("latest_receipt_info[3].transaction_id"); empty
    /// when the document as a whole is at fault.
    public var field: String
    public var message: String

    public var description: String {
        field.isEmpty ? "\(code): \(message)" : "\(code): \(field): \(message)"
    }
}

extension ErrorCode<AppStoreFormatError> {
    /// The bytes are not a JSON object (syntax, encoding, nesting, top-level type).
    public static var invalidJSON: Self { Self("invalid_json") }
    /// A field every record of its kind needs (an id, a purchase date) is absent or null.
    public static var missingField: Self { Self("missing_field") }
    /// A field is present but its type or text cannot be read as what the field means.
    public static var invalidValue: Self { Self("invalid_value") }
}
