import SQLite
import StorageCore
import StorageTables

/// How SQLite's `history_events.event_id` keeps an event id
/// (`history_events_compact_ids`): an id the store derives from a transaction id
/// ("purchase:2000000123456789", "renewal:…", "refund:…", "revoke:…", "product_change:…",
/// "product_change:to:…", see ``HistoryDerivation``) whose number is canonical decimal text
/// (``DecimalText``) is stored as the INTEGER `number << 4 | prefix code`; every other id
/// ("v2:<uuid>", "ownership_transfer:…", "refund:<id>:<date>", "purchase:007") stays text.
///
/// Why: the id is part of the table's clustered key and of its unique index, so it is stored
/// twice; as text it was the largest column of both (16-24 bytes, now 4-8). Nothing is lost:
/// the integer reads back as the prefix and the number's decimal text, which for a canonical
/// number is the id byte for byte (``textSQL(_:)``). The form is a function of the id's bytes
/// alone, so one id always has one stored form and the unique index stays exact; but an
/// integer never equals text, so every statement that binds an id for `history_events` binds
/// it through ``StorageEngine/bindHistoryEventID(_:at:of:)``, and every reader takes the text
/// through ``StorageEngine/historyEventIDText(_:)``. PostgreSQL and `pending_events` keep text.
package enum CompactEventID {
    /// Frozen with the migration: a code is stored; never renumber one, append a new prefix
    /// (at most 16 codes fit the 4 bits).
    package static let prefixes = [
        "purchase:", "renewal:", "refund:", "revoke:", "product_change:", "product_change:to:",
    ]
    /// The name the migration calls ``value(_:)-(UnsafeRawBufferPointer)`` by in SQLite's SQL
    /// (-1 for an id kept as text).
    package static let sqlFunction = "entitlementd_compact_event_id"
    /// The largest number that fits beside a 4-bit code in a positive Int64.
    package static let largestNumber = UInt64(Int64.max) >> 4

    /// The id's stored integer; nil when it stays text.
    package static func value(_ id: String) -> Int64? {
        var id = id
        return id.withUTF8 { value(UnsafeRawBufferPointer($0)) }
    }

    package static func value(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        for (code, prefix) in prefixes.enumerated() {
            let prefix = prefix.utf8
            guard bytes.count > prefix.count, bytes.starts(with: prefix),
                  let number = DecimalText.value(utf8: bytes[prefix.count...]), number <= largestNumber
            else { continue }
            return Int64(number << 4) | Int64(code)
        }
        return nil
    }

    /// The id a stored integer stands for (the inverse of ``value(_:)-(String)``).
    package static func text(_ value: Int64) -> String {
        prefixes[Int(value & 15)] + DecimalText.text(UInt64(value >> 4))
    }

    /// SQL giving the id's text for the value in `column`, as ``text(_:)`` does: what readers
    /// select, order by and compare cursors with, so pages keep the ids' byte order.
    package static func textSQL(_ column: String) -> String {
        let prefixCases = prefixes.enumerated().map { "WHEN \($0.offset) THEN '\($0.element)'" }.joined(separator: " ")
        return """
            (CASE WHEN typeof(\(column)) = 'integer' THEN (CASE \(column) & 15 \(prefixCases) END) || (\(column) >> 4) \
            ELSE \(column) END)
            """
    }

    /// SQL giving the stored form of the text id in `column` (through ``sqlFunction``).
    package static func storedSQL(_ column: String) -> String {
        "(CASE WHEN \(sqlFunction)(\(column)) >= 0 THEN \(sqlFunction)(\(column)) ELSE \(column) END)"
    }

    /// Defines ``sqlFunction`` on `db`, for the migration's SQL.
    package static func define(on db: Connection) throws {
        try db.defineFunction(sqlFunction) { value($0) ?? -1 }
    }
}
