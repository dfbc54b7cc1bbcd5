/// How proto names become Swift names: one rule for every field, value and package, so a
/// reader can predict the Swift name of anything in Protos/ without looking.
///
/// snake_case words are joined in camel case, and a word in ``initialisms`` is written in
/// capitals (`product_id` -> `productID`, `compact_jws` -> `compactJWS`), as the Swift API
/// Design Guidelines case acronyms uniformly and as the hand-written API always did.
public enum SwiftNames {
    /// The acronyms our protos use as words. Add one here, not a special case elsewhere.
    public static let initialisms: Set<String> = ["api", "grpc", "id", "json", "jws"]

    /// A field's property name: `original_transaction_id` -> `originalTransactionID`.
    public static func property(_ protoName: String) -> String {
        camelCase(protoName.split(separator: "_").map(String.init), upperFirst: false)
    }

    /// The namespace a package's types live in: `grpc.health.v1` -> `GRPCHealthV1`.
    public static func namespace(package: String) -> String {
        camelCase(package.split(separator: ".").map(String.init), upperFirst: true)
    }

    /// An enum value's member name, without the enum's own name as a prefix, as protobuf's
    /// style guide writes values: `ENTITLEMENT_STATE_GRACE_PERIOD` of `EntitlementState` ->
    /// `gracePeriod`. The prefix stays when dropping it would leave a name starting with a digit.
    public static func enumValue(_ protoName: String, of enumName: String) -> String {
        let prefix = upperSnakeCase(enumName) + "_"
        var name = protoName
        if name.hasPrefix(prefix), let first = name.dropFirst(prefix.count).first, !first.isNumber {
            name = String(name.dropFirst(prefix.count))
        }
        return camelCase(name.lowercased().split(separator: "_").map(String.init), upperFirst: false)
    }

    /// `EntitlementState` -> `ENTITLEMENT_STATE`: the prefix protobuf's style puts on values.
    static func upperSnakeCase(_ camel: String) -> String {
        var result = ""
        var previous: Character?
        for character in camel {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber {
                result.append("_")
            }
            result.append(character)
            previous = character
        }
        return result.uppercased()
    }

    private static func camelCase(_ words: [String], upperFirst: Bool) -> String {
        var result = ""
        for word in words where !word.isEmpty {
            if result.isEmpty && !upperFirst {
                result = word.prefix(1).lowercased() + word.dropFirst()
            } else if initialisms.contains(word.lowercased()) {
                result += word.uppercased()
            } else {
                result += word.prefix(1).uppercased() + word.dropFirst()
            }
        }
        return result
    }

    /// `name` as a Swift identifier: backquoted when it is a keyword (`EVENT_SOURCE_OPERATOR`
    /// becomes `` `operator` ``); backquotes are legal at every use, so callers need not care.
    public static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// Swift's reserved words, which cannot name a property or static member unquoted.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "false", "is", "nil", "self", "Self", "super",
        "throws", "true", "try",
    ]
}
