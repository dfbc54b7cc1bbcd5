import PostgreSQL
import StorageCore

extension StoreMigration {
    /// ``copy(sqlitePath:to:nowMs:progress:)`` to the database a `postgres://` or
    /// `postgresql://` URL names, so callers (the daemon's migrate-store) need no PostgreSQL
    /// module; a URL libpq cannot read is a `.target` failure whose message omits the password.
    public static func copy(
        sqlitePath: String, to url: String, nowMs: Int64, progress: (String) -> Void
    ) throws(Failure) -> [TableCount] {
        let parsed: ConnectionURL
        do {
            parsed = try ConnectionURL(url)
        } catch {
            throw Failure(kind: .target, message: "\(error)")
        }
        return try copy(sqlitePath: sqlitePath, to: parsed, nowMs: nowMs, progress: progress)
    }
}
