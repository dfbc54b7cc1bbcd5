import Entitlements
import SQLDatabase

/// Heads for the users who existed before the change log (migration
/// `entitlement_heads_baseline`): what they hold now becomes what was last announced, silently,
/// so their expiries become due and their next fact announces only what it changes.
extension ChangeRecorder {
    /// Gives up to `limit` of the remaining pre-existing users heads at `nowMs` (a user who got
    /// heads from a fact meanwhile is left alone) and records the progress; returns whether
    /// users remain. Runs inside the writer's open transaction.
    package func recordBaseline(nowMs: Int64, limit: Int) throws -> Bool {
        let progress = try db.prepare(
            "SELECT done_through_user_rowid, pending_through_user_rowid FROM entitlement_heads_baseline")
        guard try progress.step() else {
            progress.reset()
            return false
        }
        let (done, pending) = (progress.int64(at: 0), progress.int64(at: 1))
        progress.reset()
        guard done < pending else { return false }

        let users = try db.prepare("SELECT id FROM users WHERE id > ? AND id <= ? ORDER BY id LIMIT ?")
        users.bind(done, at: 1)
        users.bind(pending, at: 2)
        users.bind(limit, at: 3)
        var rows: [Int64] = []
        while try users.step() { rows.append(users.int64(at: 0)) }
        users.reset()
        for userRow in rows where try heads(userRow: userRow).isEmpty {
            let now = EntitlementRules.entitlements(for: try facts(userRow: userRow), at: .now(nowMs), catalog: catalog)
            try moveHeads(userRow: userRow, before: [], after: now, at: nowMs)
        }
        let through = rows.count < limit ? pending : rows.last ?? pending
        let advance = try db.prepare("UPDATE entitlement_heads_baseline SET done_through_user_rowid = ?")
        advance.bind(through, at: 1)
        try advance.execute()
        return through < pending
    }
}
