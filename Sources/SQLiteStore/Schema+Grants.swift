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
        \(current.table("grants"))
        ALTER TABLE history_events ADD COLUMN actor TEXT;
        ALTER TABLE history_events ADD COLUMN reason TEXT;
        """)
}
