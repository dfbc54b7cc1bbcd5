import Foundation

/// One JSON object from Apple with tolerant, path-aware field readers.
///
/// Every reader treats a missing key, `null` and an empty string alike as "absent" (Apple has
/// sent all three for the same missing value), ignores keys it is not asked about (Apple adds
/// fields), and reports a value it cannot read with the dotted path of the field, so an error
/// names exactly what to look at in a captured body.
struct AppleJSONObject {
    let fields: [String: Any]
    /// Where this object sits in the document ("" for the top level).
    let path: String

    /// Parses a whole document, which must be one JSON object.
    ///
    /// `JSONSerialization` throws (never traps) on invalid UTF-8, bad syntax and nesting deeper
    /// than 512, so arbitrary network bytes are safe here.
    static func parse(_ bytes: [UInt8]) throws(AppStoreFormatError) -> AppleJSONObject {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw AppStoreFormatError(
                code: .invalidJSON, field: "", message: "the body is not valid JSON")
        }
        guard let fields = value as? [String: Any] else {
            throw AppStoreFormatError(
                code: .invalidJSON, field: "", message: "the body is not a JSON object")
        }
        return AppleJSONObject(fields: fields, path: "")
    }

    func fieldPath(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    func has(_ key: String) -> Bool { value(key) != nil }

    /// The raw value, or `nil` when absent, `null` or an empty string.
    func value(_ key: String) -> Any? {
        guard let value = fields[key], !(value is NSNull) else { return nil }
        if let string = value as? String, string.isEmpty { return nil }
        return value
    }

    // MARK: Optional readers

    /// A string; an integer number becomes its exact decimal text (ids arrive either way).
    func string(_ key: String) throws(AppStoreFormatError) -> String? {
        try read(key, as: "a string or an integer", LenientValue.text)
    }

    func int64(_ key: String) throws(AppStoreFormatError) -> Int64? {
        try read(key, as: "an integer (number or string)", LenientValue.int64)
    }

    func int(_ key: String) throws(AppStoreFormatError) -> Int? {
        try read(key, as: "an integer (number or string)") {
            LenientValue.int64($0).flatMap(Int.init(exactly:))
        }
    }

    func bool(_ key: String) throws(AppStoreFormatError) -> Bool? {
        try read(key, as: "a boolean (true/false, 1/0, or those as strings)", LenientValue.bool)
    }

    func object(_ key: String) throws(AppStoreFormatError) -> AppleJSONObject? {
        guard let value = value(key) else { return nil }
        guard let fields = value as? [String: Any] else { throw invalid(key, expected: "an object") }
        return AppleJSONObject(fields: fields, path: fieldPath(key))
    }

    /// An array of objects; a single object counts as an array of one (iOS 6 style
    /// `latest_receipt_info`), and an absent field as an empty array.
    func objects(_ key: String) throws(AppStoreFormatError) -> [AppleJSONObject] {
        guard let value = value(key) else { return [] }
        if let fields = value as? [String: Any] {
            return [AppleJSONObject(fields: fields, path: fieldPath(key))]
        }
        guard let array = value as? [Any] else { throw invalid(key, expected: "an array of objects") }
        var objects: [AppleJSONObject] = []
        objects.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard let fields = element as? [String: Any] else {
                throw AppStoreFormatError(
                    code: .invalidValue, field: "\(fieldPath(key))[\(index)]",
                    message: "expected an object")
            }
            objects.append(AppleJSONObject(fields: fields, path: "\(fieldPath(key))[\(index)]"))
        }
        return objects
    }

    // MARK: Required readers

    func requiredString(_ key: String) throws(AppStoreFormatError) -> String {
        guard let string = try string(key) else { throw missing(key) }
        return string
    }

    func requiredInt64(_ key: String) throws(AppStoreFormatError) -> Int64 {
        guard let number = try int64(key) else { throw missing(key) }
        return number
    }

    func requiredInt(_ key: String) throws(AppStoreFormatError) -> Int {
        guard let number = try int(key) else { throw missing(key) }
        return number
    }

    func missing(_ key: String) -> AppStoreFormatError {
        AppStoreFormatError(
            code: .missingField, field: fieldPath(key), message: "required field is absent")
    }

    func invalid(_ key: String, expected: String) -> AppStoreFormatError {
        AppStoreFormatError(
            code: .invalidValue, field: fieldPath(key),
            message: "expected \(expected), found \(Self.describe(fields[key] as Any))")
    }

    private func read<T>(
        _ key: String, as expected: String, _ convert: (Any) -> T?
    ) throws(AppStoreFormatError) -> T? {
        guard let value = value(key) else { return nil }
        guard let converted = convert(value) else { throw invalid(key, expected: expected) }
        return converted
    }

    /// A short rendering of a bad value for the error message: its kind, never a string's text.
    ///
    /// These messages are logged and sent back to the webhook's caller; a string in the wrong
    /// place may be a receipt or a secret (a `unified_receipt` sent as its base64), so only its
    /// length is shown.
    private static func describe(_ value: Any) -> String {
        switch value {
        case let string as String:
            return "a string of \(string.count) characters"
        case let number as NSNumber:
            return LenientValue.isBoolean(number)
                ? "the boolean \(number.boolValue)" : "the number \(number.stringValue)"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "an unexpected value"
        }
    }
}
