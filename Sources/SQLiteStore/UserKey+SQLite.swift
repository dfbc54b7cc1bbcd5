import SQLite
import StorageCore
import StorageTables

/// ``UserKey`` in SQLite's SQL, for the migration that keyed `user_facts` by it.
extension UserKey {
    /// The name the migrations call the hash by in SQLite's SQL.
    package static let sqlFunction = "entitlementd_user_key"

    /// Defines ``sqlFunction`` on `db`, for the migration's SQL.
    package static func define(on db: Connection) throws {
        try db.defineFunction(sqlFunction) { of($0) }
    }
}
