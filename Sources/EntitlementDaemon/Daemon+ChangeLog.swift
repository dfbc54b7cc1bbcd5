import ServiceRuntime
import SQLiteStore
import StorageCore

/// The change log's wiring: retention, the catalog the changes are evaluated with, metrics.
extension Daemon {
    /// --change-retention: a duration of at least a minute, or `off` (keep every change).
    static func changeRetentionMs(_ flags: ParsedFlags) throws -> Int64? {
        if flags.string("change-retention") == "off" { return nil }
        guard let retention = try flags.duration("change-retention"), retention >= .seconds(60) else {
            throw FlagError("--change-retention must be at least 1m (e.g. 30d, 72h), or off to keep every change")
        }
        return retention.inMilliseconds
    }

    /// The store's change-log settings: CheckEntitlement's catalog (a change records what it
    /// would answer), --change-retention, and ``ChangeLogMetrics``.
    func configureChangeLog(_ configuration: inout EntitlementStore.Configuration) {
        configuration.catalog = catalog
        configuration.changeRetentionMs = changeRetentionMs
        configuration.changeLogReporting = ChangeLogMetrics(registry: metrics).reporting
    }
}
