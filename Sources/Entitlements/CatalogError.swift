import ErrorCodes

/// Why a catalog could not be loaded; its description names the file and line to fix.
///
/// A bad catalog stops startup: serving with half a catalog would classify products by
/// guesswork and grant the wrong access.
public struct CatalogError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What kind of mistake; extensible without breaking callers that switch on it.
    public typealias Code = ErrorCode<CatalogError>

    public var code: Code
    /// The file name as the operator gave it, so the message points at their file.
    public var sourceName: String
    /// 1-based; `nil` for a catalog built in code, which has no lines.
    public var line: Int?
    public var message: String

    public var description: String {
        guard let line else { return "\(sourceName): \(message)" }
        return "\(sourceName) line \(line): \(message)"
    }
}

extension ErrorCode<CatalogError> {
    /// The bytes are not JSON (syntax, encoding, nesting).
    public static var invalidJSON: Self { Self("invalid_json") }
    /// A field or document has the wrong JSON type or an empty value.
    public static var invalidValue: Self { Self("invalid_value") }
    public static var missingField: Self { Self("missing_field") }
    /// A misspelt key would otherwise silently fall back to a default.
    public static var unknownField: Self { Self("unknown_field") }
    public static var unknownType: Self { Self("unknown_type") }
    public static var duplicateProduct: Self { Self("duplicate_product") }
    /// A non_renewing product without a positive duration, or a duration on another type.
    public static var invalidDuration: Self { Self("invalid_duration") }
}
