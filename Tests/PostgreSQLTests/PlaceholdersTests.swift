import Testing
@testable import PostgreSQL

/// SQLite's `?`/`?N` become `$N` with SQLite's numbering, and text that is not SQL code stays.
struct PlaceholdersTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var sql: String
        var expected: String
        var count: Int
        var testDescription: String { sql }
    }

    static let cases: [Case] = [
        Case(sql: "SELECT 1", expected: "SELECT 1", count: 0),
        Case(sql: "SELECT ?", expected: "SELECT $1", count: 1),
        Case(sql: "INSERT INTO t VALUES (?, ?, ?)", expected: "INSERT INTO t VALUES ($1, $2, $3)", count: 3),
        Case(sql: "WHERE a = ?1 OR b = ?1", expected: "WHERE a = $1 OR b = $1", count: 1),
        Case(sql: "WHERE a = ?2 AND b = ?1", expected: "WHERE a = $2 AND b = $1", count: 2),
        // SQLite: a bare ? is one more than the largest index so far.
        Case(sql: "VALUES (?3, ?, ?1, ?)", expected: "VALUES ($3, $4, $1, $5)", count: 5),
        Case(sql: "LIMIT ?10", expected: "LIMIT $10", count: 10),
        Case(sql: "SELECT '?' , ?", expected: "SELECT '?' , $1", count: 1),
        Case(sql: "SELECT 'it''s ?', ?", expected: "SELECT 'it''s ?', $1", count: 1),
        Case(sql: "SELECT '', ?", expected: "SELECT '', $1", count: 1),
        Case(sql: "SELECT E'a\\'?', ?", expected: "SELECT E'a\\'?', $1", count: 1),
        Case(sql: "SELECT e'\\\\', ?", expected: "SELECT e'\\\\', $1", count: 1),
        // A word ending in e before a quote is not an escape string: the backslash is literal.
        Case(sql: "SELECT name'\\', ?", expected: "SELECT name'\\', $1", count: 1),
        Case(sql: "SELECT \"col?\" FROM \"t\"\"?\" WHERE x = ?",
             expected: "SELECT \"col?\" FROM \"t\"\"?\" WHERE x = $1", count: 1),
        Case(sql: "SELECT ? -- why?\n, ?", expected: "SELECT $1 -- why?\n, $2", count: 2),
        Case(sql: "SELECT /* ? /* nested ? */ still ? */ ?", expected: "SELECT /* ? /* nested ? */ still ? */ $1",
             count: 1),
        Case(sql: "SELECT $$ ? $$, ?", expected: "SELECT $$ ? $$, $1", count: 1),
        Case(sql: "SELECT $fn$ it's ? $x$ $fn$, ?", expected: "SELECT $fn$ it's ? $x$ $fn$, $1", count: 1),
        Case(sql: "SELECT $1, $2", expected: "SELECT $1, $2", count: 2),
        Case(sql: "SELECT a$b, ?", expected: "SELECT a$b, $1", count: 1),
        Case(sql: "SELECT 'unterminated ?", expected: "SELECT 'unterminated ?", count: 0),
        Case(sql: "SELECT 'é?', ?", expected: "SELECT 'é?', $1", count: 1),
        Case(sql: "SELECT ?::bigint", expected: "SELECT $1::bigint", count: 1),
    ]

    @Test(arguments: cases)
    func rewrites(_ example: Case) {
        let rewritten = Placeholders.rewrite(example.sql)
        #expect(rewritten.sql == example.expected)
        #expect(rewritten.parameterCount == example.count)
    }
}
