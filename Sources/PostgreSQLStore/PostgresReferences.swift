import PostgreSQL

/// The references PostgreSQL no longer checks as rows are written, and the check
/// `entitlementd verify-store` runs for them instead.
///
/// Migration `drop_foreign_keys_of_written_tables` dropped these FOREIGN KEY constraints (their
/// triggers cost a quarter of the server's CPU per write); the shared recorders keep the
/// references, tested with SQLite's checks on, so a row found here is damage: a bug or a hand edit.
package enum PostgresReferences {
    /// A column naming a row of another table by its `id`.
    package struct Reference: Sendable {
        package let table: String
        package let column: String
        package let parent: String
    }

    /// Every reference the migration stopped checking.
    package static let unchecked: [Reference] = [
        Reference(table: "transactions", column: "chain_rowid", parent: "chains"),
        Reference(table: "transactions", column: "product_name_rowid", parent: "product_names"),
        Reference(table: "transactions", column: "group_name_rowid", parent: "product_names"),
        Reference(table: "renewal_infos", column: "chain_rowid", parent: "chains"),
        Reference(table: "renewal_infos", column: "auto_renew_product_name_rowid", parent: "product_names"),
        Reference(table: "history_events", column: "user_rowid", parent: "users"),
        Reference(table: "pending_events", column: "chain_rowid", parent: "chains"),
        Reference(table: "entitlement_changes", column: "user_rowid", parent: "users"),
        Reference(table: "entitlement_heads", column: "user_rowid", parent: "users"),
    ]

    /// One line per reference that names missing rows: how many rows do, and the first missing id.
    ///
    /// One anti-join per reference (a hash anti-join over each table on a large store), run in
    /// the caller's snapshot so rows a server writes meanwhile are seen with their parents.
    package static func orphans(_ db: PostgreSQL.Connection) throws -> [String] {
        var found: [String] = []
        for reference in unchecked {
            let statement = try db.prepare("""
                SELECT count(*), min(x.\(reference.column)) FROM \(reference.table) x
                WHERE x.\(reference.column) IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM \(reference.parent) p WHERE p.id = x.\(reference.column))
                """)
            defer { statement.reset() }
            guard try statement.step() else { continue }
            let rows = statement.int64(at: 0)
            guard rows > 0 else { continue }
            let named = rows == 1 ? "1 row" : "\(rows) rows"
            found.append("\(reference.table).\(reference.column) names a missing row of \(reference.parent) "
                         + "in \(named) (the lowest id named: \(statement.int64(at: 1))): restore the "
                         + "missing rows from a backup, or report the bug that wrote them")
        }
        return found
    }
}
