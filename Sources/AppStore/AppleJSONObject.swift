/// One JSON object from Apple with tolerant, path-aware field readers.
///
/// Every reader treats a missing key, `null` and an empty string alike as "absent" (Apple has
/// sent all three for the same missing value), ignores keys it is not asked about (Apple adds
/// fields), and reports a value it cannot read with the dotted path of the field, so an error
/// names exactly what to look at in a captured body.
struct AppleJSONObject {
    let fields: AppleJSONFields
    /// Where this object sits in the document ("" for the top level).
    let path: String

    /// Parses a whole document, which must be one JSON object.
    ///
    /// ``AppleJSONParser`` reads what Apple sends; whatever it declines goes to
    /// `JSONSerialization`, which decides acceptance and reads the unusual numbers (see
    /// ``AppleJSONDecoding``).
    static func parse(
        _ bytes: [UInt8], decoding: AppleJSONDecoding = .purposeBuilt
    ) throws(AppStoreFormatError) -> AppleJSONObject {
        let decoded = decoding == .purposeBuilt ? AppleJSONParser.decode(bytes) : nil
        guard let value = decoded ?? AppleJSONValue.foundationDecoded(bytes) else {
            throw AppStoreFormatError(
                code: .invalidJSON, field: "", message: "the body is not valid JSON")
        }
        guard case .object(let fields) = value else {
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
    func value(_ key: String) -> AppleJSONValue? {
        switch fields[key] {
        case nil, .null?, .string("")?: return nil
        case let value?: return value
        }
    }

    /// A string exactly as sent, even empty; `nil` when absent or not a string.
    func rawString(_ key: String) -> String? {
        guard case .string(let string)? = fields[key] else { return nil }
        return string
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
        guard case .object(let fields) = value else { throw invalid(key, expected: "an object") }
        return AppleJSONObject(fields: fields, path: fieldPath(key))
    }

    /// An array of objects; a single object counts as an array of one (iOS 6 style
    /// `latest_receipt_info`), and an absent field as an empty array.
    func objects(_ key: String) throws(AppStoreFormatError) -> [AppleJSONObject] {
        guard let value = value(key) else { return [] }
        if case .object(let fields) = value {
            return [AppleJSONObject(fields: fields, path: fieldPath(key))]
        }
        guard case .array(let array) = value else { throw invalid(key, expected: "an array of objects") }
        var objects: [AppleJSONObject] = []
        objects.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard case .object(let fields) = element else {
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
            message: "expected \(expected), found \(Self.describe(fields[key] ?? .null))")
    }

    private func read<T>(
        _ key: String, as expected: String, _ convert: (AppleJSONValue) -> T?
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
    private static func describe(_ value: AppleJSONValue) -> String {
        switch value {
        case .string(let string): return "a string of \(string.count) characters"
        case .bool(let bool): return "the boolean \(bool)"
        case .number(let number): return "the number \(number.text)"
        case .array: return "an array"
        case .object: return "an object"
        case .null: return "an unexpected value"
        }
    }
}

/// Which decoder reads Apple's JSON.
///
/// `.foundation` is the `JSONSerialization` reading every document got before the purpose-built
/// decoder; it stays as the reference the differential tests compare against.
public enum AppleJSONDecoding: Sendable, Hashable {
    /// ``AppleJSONParser``, falling back to `JSONSerialization` for whatever it declines.
    case purposeBuilt
    /// `JSONSerialization` alone.
    case foundation
}
