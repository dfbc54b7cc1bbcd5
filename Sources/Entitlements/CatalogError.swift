/// Why a catalog could not be loaded; its description names the file and line to fix.
///
/// A bad catalog stops startup: serving with half a catalog would classify products by
/// guesswork and grant the wrong access.
public struct CatalogError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What kind of mistake; extensible without breaking callers that switch on it.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: String, Sendable, Hashable {
            case invalidJSON = "invalid_json"
            case invalidValue = "invalid_value"
            case missingField = "missing_field"
            case unknownField = "unknown_field"
            case unknownType = "unknown_type"
            case duplicateProduct = "duplicate_product"
            case invalidDuration = "invalid_duration"
        }

        private var wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The bytes are not JSON (syntax, encoding, nesting).
        public static let invalidJSON = Code(.invalidJSON)
        /// A field or document has the wrong JSON type or an empty value.
        public static let invalidValue = Code(.invalidValue)
        public static let missingField = Code(.missingField)
        /// A misspelt key would otherwise silently fall back to a default.
        public static let unknownField = Code(.unknownField)
        public static let unknownType = Code(.unknownType)
        public static let duplicateProduct = Code(.duplicateProduct)
        /// A non_renewing product without a positive duration, or a duration on another type.
        public static let invalidDuration = Code(.invalidDuration)

        public var description: String { wrapped.rawValue }
    }

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
