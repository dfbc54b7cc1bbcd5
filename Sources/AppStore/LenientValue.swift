import Foundation

/// Reads one JSON value the way Apple's drifting formats need: numbers or strings for integers
/// and ids, `true`/`"true"`/`1`/`"1"` for booleans.
///
/// Numbers that `JSONSerialization` decoded arrive as `NSNumber` holding an `Int64` or `UInt64`,
/// integers beyond those as `NSDecimalNumber` (38 significant digits, rounded after that), and
/// fractions as `Double`. Ids are rendered from those integer forms, never through `Double`,
/// which silently rounds above 2^53: 1000000595277993 must not become 1000000595277992. The
/// purpose-built decoder keeps integers as `Int64`/`UInt64` and reads them the same way.
enum LenientValue {
    /// Digits an `NSDecimalNumber` keeps exactly; longer integers come back rounded.
    private static let exactDecimalDigits = 38

    /// A string, or an integer number rendered as its exact decimal text; `nil` for anything else.
    static func text(_ value: AppleJSONValue) -> String? {
        switch value {
        case .string(let string): return string
        case .number(let number): return number.integerText
        default: return nil
        }
    }

    /// A whole number from a JSON number or a decimal string; `nil` when it is neither.
    ///
    /// A number with a fraction is truncated: Xcode's StoreKit testing writes dates as
    /// fractional milliseconds, and a millisecond less matters to nothing here. Strings must be
    /// integers: a fraction there is a sign of a different field, not a rounding.
    static func int64(_ value: AppleJSONValue) -> Int64? {
        switch value {
        case .string(let string): return Int64(string)
        case .number(let number): return number.int64
        default: return nil
        }
    }

    /// `true`/`false`, `1`/`0`, and those four as strings (any letter case).
    static func bool(_ value: AppleJSONValue) -> Bool? {
        switch value {
        case .string(let string):
            switch string.lowercased() {
            case "true", "1": return true
            case "false", "0": return false
            default: return nil
            }
        case .bool(let bool): return bool
        case .number(let number):
            switch number.integerText {
            case "1": return true
            case "0": return false
            default: return nil
            }
        default: return nil
        }
    }

    /// An `NSNumber` from `JSONSerialization` (never a boolean) as a whole number.
    static func int64(_ number: NSNumber) -> Int64? {
        if let text = integerText(number) { return Int64(text) }
        let double = number.doubleValue
        guard double.isFinite, double > -9.2e18, double < 9.2e18 else { return nil }
        return Int64(double.rounded(.towardZero))
    }

    /// JSON's `true`/`false` arrive as a distinct `NSNumber` subclass on every platform, while
    /// `value is Bool` also matches the numbers 0 and 1 (and 1.0).
    private static let booleanType = type(of: NSNumber(value: true))

    static func isBoolean(_ number: NSNumber) -> Bool {
        type(of: number) == booleanType
    }

    /// The exact decimal text of an integral number, or `nil` when it has a fraction or more
    /// digits than can have survived parsing.
    static func integerText(_ number: NSNumber) -> String? {
        if number is NSDecimalNumber {
            let text = number.stringValue
            let digits = text.utf8.drop { $0 == UInt8(ascii: "-") }
            guard !digits.isEmpty, digits.count <= exactDecimalDigits,
                  digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
            return text
        }
        switch number.objCType.pointee {
        case CChar(UInt8(ascii: "Q")), CChar(UInt8(ascii: "L")), CChar(UInt8(ascii: "I")),
             CChar(UInt8(ascii: "S")), CChar(UInt8(ascii: "C")):
            return String(number.uint64Value)
        case CChar(UInt8(ascii: "q")), CChar(UInt8(ascii: "l")), CChar(UInt8(ascii: "i")),
             CChar(UInt8(ascii: "s")), CChar(UInt8(ascii: "c")):
            return String(number.int64Value)
        default:
            // A double: exact only while every integer is representable.
            let double = number.doubleValue
            guard double.isFinite, double == double.rounded(), abs(double) <= 9_007_199_254_740_992
            else { return nil }
            return String(Int64(double))
        }
    }
}
