import SQLite
import StorageCore

extension Schema {
    /// Entitlements given by hand (`Grant`), and who did what in history.
    ///
    /// A grant row is the fact; revoking fills in its revocation columns and never deletes it,
    /// so a check at an earlier instant still sees the grant. The idempotency key is unique per
    /// user (NULLs never collide). History gains the operator's name and reason beside Apple's
    /// columns, NULL for Apple's events.
    package static let grantsMigration = Migration("grants", sql: """
        CREATE TABLE grants (
            id INTEGER PRIMARY KEY,
            grant_id TEXT NOT NULL UNIQUE,
            user_rowid INTEGER NOT NULL REFERENCES users(id),
            entitlement_id TEXT NOT NULL,
            starts_at_ms INTEGER NOT NULL,
            expires_at_ms INTEGER NOT NULL,
            actor TEXT NOT NULL,
            reason TEXT NOT NULL,
            idempotency_key TEXT,
            created_at_ms INTEGER NOT NULL,
            revoked_at_ms INTEGER,
            revoked_by TEXT,
            revocation_reason TEXT
        );
        CREATE INDEX grants_by_user ON grants(user_rowid);
        CREATE UNIQUE INDEX grants_by_idempotency_key ON grants(user_rowid, idempotency_key)
            WHERE idempotency_key IS NOT NULL;
        ALTER TABLE history_events ADD COLUMN actor TEXT;
        ALTER TABLE history_events ADD COLUMN reason TEXT;
        """)
}
