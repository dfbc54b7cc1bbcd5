import Dispatch
import EntitlementPorts
import ServiceRuntime
import StorageTables

/// Read connections shared by the threads that read; one per thread reading at the same time.
///
/// Event-loop threads call the store's reads synchronously; each borrows a connection for one
/// query and returns it. The pool grows to the peak number of concurrent readers and stays
/// there; borrowing costs an uncontended lock, not an open.
package final class ReaderPool<DB: StorageEngine>: Sendable {
    private struct State: Sendable {
        package var idle: [StoreReader<DB>] = []
        package var isClosed = false
    }

    private let open: @Sendable () throws -> DB
    private let state = Locked(State())
    /// At most this many readers at once, when the engine's connections are a server's
    /// resource (PostgreSQL's max_connections); `nil`: one per concurrent reader, as SQLite.
    private let slots: DispatchSemaphore?

    /// `open` makes a new read connection, configured for reading (the pool grows on demand,
    /// up to `limit` connections when given; a reader beyond it waits for one to come back).
    package init(limit: Int? = nil, open: @escaping @Sendable () throws -> DB) {
        self.open = open
        slots = limit.map { DispatchSemaphore(value: max(1, $0)) }
    }

    /// Runs `body` with a reader of its own; throws ``StoreError/closedStore`` after ``close()``.
    package func withReader<T>(_ body: (StoreReader<DB>) throws -> T) throws -> T {
        slots?.wait()
        defer { slots?.signal() }
        let borrowed = try state.withLock { state -> StoreReader<DB>? in
            guard !state.isClosed else { throw StoreError.closedStore }
            return state.idle.popLast()
        }
        let reader: StoreReader<DB>
        do {
            reader = try borrowed ?? StoreReader(db: open())
        } catch {
            throw StoreError.storage(error, "opening a read connection")
        }
        defer {
            let keep = state.withLock { state in
                if !state.isClosed { state.idle.append(reader) }
                return !state.isClosed
            }
            if !keep { reader.close() }
        }
        return try body(reader)
    }

    /// Ends the read transactions idle readers hold (``StoreReader/endSnapshot()``), so that
    /// none keeps the WAL from being checkpointed; the writer calls it before each batch it
    /// commits (its other, rarer commits leave them to the readers' next reads). A
    /// reader that fails to end one is closed and dropped (the pool opens another on demand).
    package func endIdleSnapshots() {
        guard DB.holdsReadSnapshots else { return }
        let failed = state.withLock { state -> [StoreReader<DB>] in
            var failed: [StoreReader<DB>] = []
            state.idle.removeAll { reader in
                do {
                    try reader.endSnapshot()
                    return false
                } catch {
                    failed.append(reader)
                    return true
                }
            }
            return failed
        }
        for reader in failed { reader.close() }
    }

    /// Closes idle readers now and borrowed ones when they come back; later reads throw.
    package func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        for reader in idle { reader.close() }
    }
}
