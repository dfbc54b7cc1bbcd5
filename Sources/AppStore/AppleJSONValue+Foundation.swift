import Foundation

extension AppleJSONValue {
    /// Decodes `bytes` with `JSONSerialization`: the reading every document got before the
    /// purpose-built decoder existed, and still gets whenever that one declines.
    ///
    /// `JSONSerialization` throws (never traps) on invalid UTF-8, bad syntax and nesting deeper
    /// than 512, so arbitrary network bytes are safe here. Returns `nil` when it throws.
    static func foundationDecoded(_ bytes: [UInt8]) -> AppleJSONValue? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) else { return nil }
        return AppleJSONValue(foundation: object)
    }

    /// Converts what `JSONSerialization` returned. JSON's `true`/`false` are a distinct
    /// `NSNumber` subclass (``LenientValue/isBoolean(_:)``); every other number stays the
    /// `NSNumber` it was, so it reads exactly as it did.
    init(foundation value: Any) {
        switch value {
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            self = LenientValue.isBoolean(number)
                ? .bool(number.boolValue) : .number(AppleJSONNumber(storage: .foundation(number)))
        case let array as [Any]:
            self = .array(array.map(AppleJSONValue.init(foundation:)))
        case let fields as [String: Any]:
            self = .object(AppleJSONFields(fields.map { (key: $0.key, value: AppleJSONValue(foundation: $0.value)) }))
        default:
            self = .null
        }
    }
}
