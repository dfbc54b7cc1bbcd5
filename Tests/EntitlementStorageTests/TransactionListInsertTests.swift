import StorageTables
import Testing

/// PostgreSQL's list insert of a write's new transactions restates the single-row insert's
/// columns (`RowListSQL.insertTransactions`, `FactsRecorderSQL.insertTransaction`): a column added
/// to one only would be missing from the other's rows, on one engine, without an error.
struct TransactionListInsertTests {
    /// The column list between `INSERT INTO transactions (` and its `)`, whitespace folded.
    private func columns(_ sql: String) throws -> [String] {
        let head = try #require(sql.range(of: "INSERT INTO transactions ("))
        let end = try #require(sql[head.upperBound...].firstIndex(of: ")"))
        return sql[head.upperBound..<end].split(separator: ",")
            .map { $0.filter { !$0.isWhitespace } }
    }

    /// How many numbered parameters (`?1` ... `?N`) the statement reads, each once.
    private func parameters(_ sql: String) -> Set<Int> {
        var found: Set<Int> = []
        var rest = Substring(sql)
        while let mark = rest.firstIndex(of: "?") {
            let digits = rest[rest.index(after: mark)...].prefix { $0.isNumber }
            if let number = Int(digits) { found.insert(number) }
            rest = rest[rest.index(after: mark)...]
        }
        return found
    }

    @Test func theListInsertNamesTheSingleRowInsertsColumnsInItsOrder() throws {
        let single = try columns(FactsRecorderSQL.insertTransaction)
        let list = try columns(RowListSQL.insertTransactions)
        #expect(list == single)
        #expect(single.count == 16, "a new column needs a bind in both FactsRecorder+Rows and +RowLists")
        let expected = Set(1...single.count)
        #expect(parameters(FactsRecorderSQL.insertTransaction) == expected)
        #expect(parameters(RowListSQL.insertTransactions) == expected)
    }
}
