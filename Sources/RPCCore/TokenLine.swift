/// One line of the tokens file: the token, then optional `name=` and `roles=` fields.
///
/// The token is always the first word, so a token that itself contains `=` (base64 padding)
/// is never mistaken for a field. Unknown fields and roles are errors: a misspelt `role=` that
/// was ignored would leave the token with every role, the opposite of what was meant.
struct TokenLine {
    var token: Substring
    var principal: Principal

    init(_ line: Substring, lineNumber: Int) throws(TokensFileError) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        token = words[0]
        var name: String?
        var roles: Set<Principal.Role>?
        for (position, word) in words.enumerated().dropFirst() {
            func fail(_ message: String) -> TokensFileError {
                TokensFileError(lineNumber: lineNumber, message: message)
            }
            // A word that is not a field may be the rest of a token written with a space in
            // it: it is never echoed, only counted.
            guard let equals = word.firstIndex(of: "=") else {
                throw fail("word \(position + 1) is not a field (a token has no spaces): "
                           + "after the token write name=<actor> or roles=<list>")
            }
            let (key, value) = (word[..<equals], word[word.index(after: equals)...])
            switch key {
            case "name":
                guard name == nil else { throw fail("name= given twice: keep one") }
                guard !value.isEmpty, value.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "," }) else {
                    throw fail("name= needs a value of printable ASCII without spaces or commas, e.g. name=alice")
                }
                name = String(value)
            case "roles":
                guard roles == nil else { throw fail("roles= given twice: list every role in one roles=a,b") }
                var set = Set<Principal.Role>()
                for role in value.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let known = Principal.Role(rawValue: String(role)) else {
                        let choices = Principal.Role.allCases.map(\.rawValue).joined(separator: ", ")
                        throw fail("unknown role '\(role)': roles= takes a comma-separated list of \(choices)")
                    }
                    set.insert(known)
                }
                roles = set
            default:
                let named = key.allSatisfy { $0.isASCII && $0.isLetter } ? " '\(key)='" : ""
                throw fail("unknown field\(named): a token line takes only name= and roles=")
            }
        }
        principal = Principal(name: name, roles: roles ?? Principal.allRoles)
    }
}
