import EntitlementPorts
import Entitlements
import SQLDatabase
import StorageTables

/// The change log's read queries: index ranges on the sequence, on a WAL read connection, so
/// the stream and the webhook feeder never wait for the writer.
extension StoreReader {

    package func changes(
        after sequence: Int64, userID: String?, limit: Int, logID: String
    ) throws -> [EntitlementChange] {
        let query = try db.prepare(userID == nil ? ChangeLogReadSQL.changesSQL : ChangeLogReadSQL.userChangesSQL)
        query.bind(sequence, at: 1)
        query.bind(limit, at: 2)
        if let userID { query.bind(userID, at: 3) }
        defer { query.reset() }
        var changes: [EntitlementChange] = []
        while try query.step() {
            let sequence = query.int64(at: 0)
            changes.append(EntitlementChange(
                sequence: sequence, changeID: EntitlementChange.changeID(logID: logID, sequence: sequence),
                userID: query.string(at: 1), entitlement: Entitlement(row: query, from: 5),
                previousState: query.optionalString(at: 3).flatMap(EntitlementState.init(rawValue:)),
                occurredAtMs: query.int64(at: 2), causeEventID: query.string(at: 4)))
        }
        return changes
    }

    /// The oldest retained and the newest assigned sequence, from one snapshot.
    package func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64) {
        try db.transaction(beginning: DB.beginSnapshotRead) {
            let latest = try db.scalarInt64(DB.latestChangeSequenceSQL) ?? 0
            let oldest = try db.scalarInt64("SELECT MIN(sequence) FROM entitlement_changes")
            return (oldest ?? latest + 1, latest)
        }
    }
}

/// The change log's read SQL (a generic type cannot hold static stored properties).
package enum ChangeLogReadSQL {
    package static let columns = """
        c.sequence, u.user_id, c.occurred_at_ms, c.previous_state, c.cause_event_id, \(Entitlement.columnNames)
        """
    package static let changesSQL = """
        SELECT \(columns) FROM entitlement_changes c JOIN users u ON u.id = c.user_rowid
        WHERE c.sequence > ? ORDER BY c.sequence LIMIT ?
        """
    package static let userChangesSQL = """
        SELECT \(columns) FROM entitlement_changes c JOIN users u ON u.id = c.user_rowid
        WHERE c.user_rowid = (SELECT id FROM users WHERE user_id = ?3) AND c.sequence > ?1
        ORDER BY c.sequence LIMIT ?2
        """
}
