import EntitlementPorts
import Entitlements
import SQLDatabase

/// Grants on the writer: the row, its history event (with actor and reason) and the user
/// marked affected, so the batch derives the change and refreshes the cache like any write.
extension FactsRecorder {
    package func record(_ write: GrantWrite, affectedUsers: inout Set<ExactID>) throws -> Grant {
        let userRow = try userRowID(write.userID, now: write.recordedAtMs)
        if !write.idempotencyKey.isEmpty {
            let find = try db.prepare(Grant.byKeySQL)
            find.bind(userRow, at: 1)
            find.bind(write.idempotencyKey, at: 2)
            if let existing = try Grant.read(find).first { return existing }
        }
        let grant = write.grant
        let insert = try db.prepare(Grant.insertSQL)
        insert.bind(grant.grantID, at: 1)
        insert.bind(userRow, at: 2)
        insert.bind(grant.entitlementID, at: 3)
        insert.bind(grant.startsAtMs, at: 4)
        insert.bind(grant.expiresAtMs, at: 5)
        insert.bind(grant.actor, at: 6)
        insert.bind(grant.reason, at: 7)
        insert.bind(write.idempotencyKey.isEmpty ? nil : write.idempotencyKey, at: 8)
        insert.bind(write.recordedAtMs, at: 9)
        try insert.execute()
        try insertOperatorEvent(grant.grantedEvent(recordedAtMs: write.recordedAtMs), userRow: userRow)
        affectedUsers.insert(ExactID(write.userID))
        return grant
    }

    package func revoke(_ revocation: GrantRevocation, affectedUsers: inout Set<ExactID>) throws -> Grant {
        let find = try db.prepare(AccountTokenSQL.userRow)
        find.bind(revocation.userID, at: 1)
        let userRow = try find.step() ? find.int64(at: 0) : nil
        find.reset()
        guard let userRow, let stored = try grant(revocation.grantID, userRow: userRow) else {
            throw StoreError.unknownGrant(revocation.grantID, userID: revocation.userID)
        }
        guard stored.revokedAtMs == nil else { return stored }
        let update = try db.prepare(Grant.revokeSQL)
        update.bind(revocation.revokedAtMs, at: 1)
        update.bind(revocation.actor, at: 2)
        update.bind(revocation.reason, at: 3)
        update.bind(userRow, at: 4)
        update.bind(revocation.grantID, at: 5)
        try update.execute()
        guard let revoked = try grant(revocation.grantID, userRow: userRow), let event = revoked.revokedEvent else {
            throw StoreError.unknownGrant(revocation.grantID, userID: revocation.userID)
        }
        try insertOperatorEvent(event, userRow: userRow)
        affectedUsers.insert(ExactID(revocation.userID))
        return revoked
    }

    private func grant(_ grantID: String, userRow: Int64) throws -> Grant? {
        let find = try db.prepare(Grant.byIDSQL)
        find.bind(userRow, at: 1)
        find.bind(grantID, at: 2)
        return try Grant.read(find).first
    }

    /// Inserts an operator's event as every event is inserted, with its actor and reason.
    private func insertOperatorEvent(_ event: HistoryEvent, userRow: Int64) throws {
        _ = try insert(event, userRow: userRow)
    }
}
