import EntitlementPorts
import Entitlements
import SQLite
import Synchronization

/// The reconciliation watermarks, in the `reconciliation_watermarks` table.
///
/// Both calls go through the writer's queue (``WriteJob/withConnection(_:_:)``), so they are
/// ordered after every write queued before them: a watermark recorded after a batch of
/// notifications was acknowledged can never be committed ahead of that batch. The write runs in
/// autocommit on the writer's connection (synchronous=FULL), so it is durable when it returns.
/// Once per run per environment, so the detour through the writer thread costs nothing.
extension EntitlementStore: ReconciliationProgress {
    public func reconciledThrough(_ environment: Environment) async throws -> Int64? {
        let found = Mutex<Int64?>(nil)
        do {
            try await withWriterConnection { db in
                let select = try db.prepare(
                    "SELECT reconciled_through_ms FROM reconciliation_watermarks WHERE environment = ?")
                defer { select.reset() }
                select.bind(environment.rawValue, at: 1)
                if try select.step() {
                    let value = select.int64(at: 0)
                    found.withLock { $0 = value }
                }
            }
        } catch {
            throw StoreError.storage(error, "reading the reconciliation watermark")
        }
        return found.withLock { $0 }
    }

    public func recordReconciled(_ environment: Environment, through unixMs: Int64) async throws {
        do {
            try await withWriterConnection { db in
                let upsert = try db.prepare("""
                    INSERT INTO reconciliation_watermarks (environment, reconciled_through_ms) VALUES (?, ?)
                    ON CONFLICT (environment) DO UPDATE
                        SET reconciled_through_ms = CASE
                            WHEN excluded.reconciled_through_ms > reconciliation_watermarks.reconciled_through_ms
                            THEN excluded.reconciled_through_ms ELSE reconciliation_watermarks.reconciled_through_ms END
                    """)
                defer { upsert.reset() }
                upsert.bind(environment.rawValue, at: 1)
                upsert.bind(unixMs, at: 2)
                try upsert.execute()
            }
        } catch {
            throw StoreError.storage(error, "recording the reconciliation watermark")
        }
    }
}
