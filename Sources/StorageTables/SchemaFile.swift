/// An engine's `schema.sql` (its current schema, embedded in the binary at build time) cut into
/// statements, so that a migration creating or rebuilding a table in its current shape takes the
/// statement from the one file that states it instead of repeating it.
///
/// Only a table no later migration changes may be taken from here: the migration that changes
/// it must first give the earlier migration its own text again. The engines' migration tests
/// hold that rule, and their schema file tests that the migrations still build the file.
package struct SchemaFile: Sendable {
    /// The statements in file order, comments left out, each with its closing semicolon.
    package let statements: [String]

    /// Cuts `text` at every line that ends a statement (its last character a semicolon); a line
    /// whose first characters are `--` is a comment.
    package init(_ text: String) {
        var statements: [String] = []
        var current: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let content = line.drop { $0 == " " }
            if content.hasPrefix("--") || (content.isEmpty && current.isEmpty) { continue }
            current.append(line)
            if content.last == ";" {
                statements.append(current.joined(separator: "\n"))
                current = []
            }
        }
        self.statements = statements
    }

    /// `name`'s CREATE TABLE statement, then the CREATE INDEX statements on it.
    package func table(_ name: String) -> String {
        ([create(name)] + indexes(on: name)).joined(separator: "\n")
    }

    /// The INSERT statements of `table`: the row a one-row table starts with.
    package func rows(of table: String) -> String {
        statements.filter { Self.subject(of: $0) == ("INSERT", table) }.joined(separator: "\n")
    }

    /// `name`'s CREATE TABLE statement alone, without its indexes: the shape a rebuild makes.
    package func shape(of name: String) -> String { create(name) }

    /// `statement`, a CREATE TABLE statement of `table`, creating `newName` instead.
    package static func renamed(_ statement: String, table: String, to newName: String) -> String {
        let head = "CREATE TABLE \(table) ("
        let body = statement.drop { $0 == " " || $0 == "\n" }
        precondition(body.hasPrefix(head), "not a CREATE TABLE statement of \(table): \(statement)")
        return "CREATE TABLE \(newName) (" + body.dropFirst(head.count)
    }

    /// The CREATE INDEX statements on `table`, in file order.
    package func indexes(on table: String) -> [String] {
        statements.filter { Self.subject(of: $0) == ("INDEX", table) }
    }

    /// The tables a migration of `migrations` (their SQL, in order) takes from this file that a
    /// later one changes (alters, drops, rebuilds or indexes), with the two migrations' offsets:
    /// what the rule above forbids, so the engines' tests hold it empty.
    package func tablesChangedAfterTaken(in migrations: [String]) -> [(table: String, taken: Int, changed: Int)] {
        var found: [(table: String, taken: Int, changed: Int)] = []
        for statement in statements where Self.subject(of: statement).0 == "TABLE" {
            let table = Self.subject(of: statement).1
            let rebuilt = Self.renamed(statement, table: table, to: "\(table)_rebuilt")
            guard let taken = migrations.firstIndex(where: { $0.contains(statement) || $0.contains(rebuilt) })
            else { continue }
            for changed in migrations.indices where changed > taken && Self.changes(migrations[changed], table) {
                found.append((table, taken, changed))
            }
        }
        return found
    }

    /// Whether `sql` alters, drops, rebuilds or indexes `table`.
    private static func changes(_ sql: String, _ table: String) -> Bool {
        let words: [String] = sql.split(whereSeparator: \.isWhitespace)
            .map { String($0.prefix { $0 != "(" && $0 != ";" }) }
        let rebuilt = "\(table)_rebuilt"
        for (first, second) in zip(words, words.dropFirst()) {
            if first == "TABLE", second == table || second == rebuilt { return true }
            if first == "ON", second == table { return true }
        }
        return false
    }

    private func create(_ table: String) -> String {
        guard let statement = statements.first(where: { Self.subject(of: $0) == ("TABLE", table) }) else {
            preconditionFailure("schema.sql has no table \(table)")
        }
        return statement
    }

    /// What a statement makes or fills: ("TABLE", name), ("INDEX", its table) or ("INSERT", table).
    private static func subject(of statement: String) -> (String, String) {
        let words = statement.split(whereSeparator: \.isWhitespace)
        let name = { (word: Substring) in String(word.prefix { $0 != "(" && $0 != ";" }) }
        switch (words.first, words.dropFirst().first) {
        case ("CREATE", "TABLE"), ("INSERT", "INTO"):
            return (words[0] == "CREATE" ? "TABLE" : "INSERT", words.count > 2 ? name(words[2]) : "")
        case ("CREATE", "INDEX"), ("CREATE", "UNIQUE"):
            guard let on = words.firstIndex(of: "ON"), on + 1 < words.count else { return ("", "") }
            return ("INDEX", name(words[on + 1]))
        default:
            return ("", "")
        }
    }
}
