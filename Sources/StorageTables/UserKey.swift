/// The key of a user's `user_facts` record: a 64-bit FNV-1a hash of the user
/// id's UTF-8 bytes, so a facts-cache miss descends one B-tree (the records, by key) instead of
/// two (`users`' unique index on user_id for the user's row, then the records by row).
///
/// A hash is not unique: the record row also holds the user id, and a reader uses the record
/// only when that id is the one asked about, byte for byte. Two ids with one key (any such pair
/// among n users has probability about n^2 / 2^65; or crafted: FNV is no defence) share one row:
/// the first user written keeps it, the other has no record and is read from the tables, as
/// a user without a record always was. Answers are the same either way; only the speed differs.
///
/// Stable across processes, machines and engines (no seed): the key is stored. The migration
/// that introduced it computes it in SQL through a SQLite function (`UserKey+SQLite.swift`) and
/// an equal PL/pgSQL function (PostgreSQL; `PostgresUpgradeTests` compares the two).
package enum UserKey {
    package static func of(_ userID: String) -> Int64 {
        var id = userID
        return id.withUTF8 { of(UnsafeRawBufferPointer($0)) }
    }

    package static func of(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}
