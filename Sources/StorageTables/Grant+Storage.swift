import Entitlements
import SQLDatabase

/// How a ``Grant`` maps to a `grants` row, and the statements both engines share.
extension Grant {
    package static let columns = """
        g.grant_id, g.entitlement_id, g.starts_at_ms, g.expires_at_ms, g.actor, g.reason, g.revoked_at_ms,
        COALESCE(g.revoked_by, ''), COALESCE(g.revocation_reason, '')
        """

    package init(row: some SQLStatement) {
        self.init(
            grantID: row.string(at: 0), entitlementID: row.string(at: 1), startsAtMs: row.int64(at: 2),
            expiresAtMs: row.int64(at: 3), actor: row.string(at: 4), reason: row.string(at: 5),
            revokedAtMs: row.isNull(at: 6) ? nil : row.int64(at: 6), revokedBy: row.string(at: 7),
            revocationReason: row.string(at: 8))
    }

    /// Every grant of the user, `?1` being their user id, in the order given.
    package static let ofUserSQL = """
        SELECT \(columns) FROM grants g JOIN users u ON u.id = g.user_rowid WHERE u.user_id = ? ORDER BY g.id
        """
    /// Every grant of the user in row `?1`, in the order given.
    package static let ofUserRowSQL = "SELECT \(columns) FROM grants g WHERE g.user_rowid = ? ORDER BY g.id"
    /// The user's (`?1`, a row) grant with idempotency key `?2`.
    package static let byKeySQL = "SELECT \(columns) FROM grants g WHERE g.user_rowid = ? AND g.idempotency_key = ?"
    /// The user's (`?1`, a row) grant with id `?2`.
    package static let byIDSQL = "SELECT \(columns) FROM grants g WHERE g.user_rowid = ? AND g.grant_id = ?"
    package static let insertSQL = """
        INSERT INTO grants (grant_id, user_rowid, entitlement_id, starts_at_ms, expires_at_ms, actor, reason,
            idempotency_key, created_at_ms)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    package static let revokeSQL = """
        UPDATE grants SET revoked_at_ms = ?, revoked_by = ?, revocation_reason = ?
        WHERE user_rowid = ? AND grant_id = ? AND revoked_at_ms IS NULL
        """
    /// Gives an operator's history event its actor and reason (the shared insert has no such columns).
    package static let eventActorSQL = "UPDATE history_events SET actor = ?, reason = ? WHERE event_id = ?"
    /// ``eventActorSQL`` for an event just inserted: a row that has an actor or reason keeps them.
    package static let newEventActorSQL = """
        UPDATE history_events SET actor = ?, reason = ? WHERE event_id = ? AND actor IS NULL AND reason IS NULL
        """

    /// The grants a bound statement of ``ofUserSQL``, ``ofUserRowSQL``, ``byKeySQL`` or ``byIDSQL``
    /// selects; resets it.
    package static func read(_ statement: some SQLStatement) throws -> [Grant] {
        defer { statement.reset() }
        var grants: [Grant] = []
        while try statement.step() { grants.append(Grant(row: statement)) }
        return grants
    }
}
