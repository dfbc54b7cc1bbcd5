import Foundation

/// One JSON value as the tolerant readers of ``AppleJSONObject`` see it.
///
/// Two decoders produce it: ``AppleJSONParser`` (purpose-built, for the shapes Apple sends) and
/// `JSONSerialization` (everything else, and the reference the first is tested against). Both
/// must give equal values for every input the purpose-built one accepts; `Equatable` is what the
/// differential test and the `json-decoders` fuzz target compare.
enum AppleJSONValue: Equatable {
    case null
    case bool(Bool)
    case string(String)
    case number(AppleJSONNumber)
    case array([AppleJSONValue])
    case object(AppleJSONFields)
}

/// The members of one JSON object, in document order.
///
/// A later member replaces an earlier one with an equal key (Swift `String` equality), as the
/// dictionary `JSONSerialization` fills does; lookups therefore search from the end. Apple's
/// objects have a few dozen members at most, so a scan beats hashing every key up front.
struct AppleJSONFields: Equatable {
    var members: [(key: String, value: AppleJSONValue)]

    init(_ members: [(key: String, value: AppleJSONValue)]) { self.members = members }

    subscript(key: String) -> AppleJSONValue? {
        for member in members.reversed() where member.key == key { return member.value }
        return nil
    }

    /// Equal when both hold the same keys with equal (last) values, whatever the order or the
    /// duplicates: that is all a lookup can observe.
    static func == (lhs: AppleJSONFields, rhs: AppleJSONFields) -> Bool {
        let left = lhs.lastValues, right = rhs.lastValues
        guard left.count == right.count else { return false }
        return left.allSatisfy { key, value in right[key] == value }
    }

    private var lastValues: [String: AppleJSONValue] {
        var values: [String: AppleJSONValue] = [:]
        for member in members { values[member.key] = member.value }
        return values
    }
}

/// A JSON number, reduced to the three readings ``LenientValue`` offers plus the text an error
/// message shows.
///
/// The purpose-built decoder only ever makes integers that fit `Int64` or `UInt64`; every other
/// number (fractions, exponents, longer integers) is left to `JSONSerialization`, whose choice of
/// `Double` or `NSDecimalNumber` decides how it reads, and is kept as that `NSNumber`.
struct AppleJSONNumber: Equatable {
    enum Storage {
        case signed(Int64)
        case unsigned(UInt64)
        case foundation(NSNumber)
    }

    let storage: Storage

    /// The exact decimal text of an integral number; `nil` when it has a fraction or too many
    /// digits to have survived parsing.
    var integerText: String? {
        switch storage {
        case .signed(let value): return String(value)
        case .unsigned(let value): return String(value)
        case .foundation(let number): return LenientValue.integerText(number)
        }
    }

    /// The whole number, truncating a fraction; `nil` beyond `Int64`.
    var int64: Int64? {
        switch storage {
        case .signed(let value): return value
        case .unsigned(let value): return Int64(exactly: value)
        case .foundation(let number): return LenientValue.int64(number)
        }
    }

    /// How an error message shows the number (`NSNumber.stringValue`).
    var text: String {
        switch storage {
        case .signed(let value): return String(value)
        case .unsigned(let value): return String(value)
        case .foundation(let number): return number.stringValue
        }
    }

    static func == (lhs: AppleJSONNumber, rhs: AppleJSONNumber) -> Bool {
        lhs.integerText == rhs.integerText && lhs.int64 == rhs.int64 && lhs.text == rhs.text
    }
}
