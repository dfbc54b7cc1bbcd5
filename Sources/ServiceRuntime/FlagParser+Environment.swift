/// Environment variables with the flags' prefix that name no flag: a typo in a deployment.
///
/// A misspelled `ENTITLEMENTD_APPLE_SHARED_SECRT` leaves the flag at its default without a
/// word, which is how a setting an operator believes is on stays off. They are reported, not
/// refused: other tools share the prefix (the tests' own variables), and a deployment must not
/// stop over a variable it never needed; the owner names the ones it knows are not flags.
extension FlagParser {
    /// One variable that names no flag, and the flag variable it most likely meant.
    public struct UnknownVariable: Sendable, Equatable {
        public let name: String
        /// The flag variable nearest by edit distance.
        public let nearest: String
    }

    /// Every `PREFIX_*` variable of `environment` that is neither a flag's nor in `otherVariables`,
    /// in name order.
    public func unknownEnvironmentVariables(
        _ environment: [String: String], otherVariables: Set<String>
    ) -> [UnknownVariable] {
        let known = specs.map { $0.environmentName(prefix: environmentPrefix) }
        let flagVariables = Set(known)
        return environment.keys.sorted().compactMap { name in
            guard name.hasPrefix(environmentPrefix + "_"), !flagVariables.contains(name),
                  !otherVariables.contains(name) else { return nil }
            let nearest = known.min { Self.editDistance(name, $0) < Self.editDistance(name, $1) } ?? ""
            return UnknownVariable(name: name, nearest: nearest)
        }
    }

    /// Levenshtein distance over bytes: the names are ASCII, and a few dozen flags make the
    /// quadratic cost nothing, once at startup.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a.utf8), Array(b.utf8))
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
