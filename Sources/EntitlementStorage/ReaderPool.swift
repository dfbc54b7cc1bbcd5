import EntitlementPorts
import ServiceRuntime

/// Read connections shared by the threads that read; one per thread reading at the same time.
///
/// Event-loop threads call the store's reads synchronously; each borrows a connection for one
/// query and returns it. The pool grows to the peak number of concurrent readers and stays
/// there; borrowing costs an uncontended lock, not an open.
final class ReaderPool: Sendable {
    private struct State: Sendable {
        var idle: [StoreReader] = []
        var isClosed = false
    }

    private let path: String
    private let configuration: EntitlementStore.Configuration
    private let state = Locked(State())

    init(path: String, configuration: EntitlementStore.Configuration) {
        self.path = path
        self.configuration = configuration
    }

    /// Runs `body` with a reader of its own; throws ``StoreError/closedStore`` after ``close()``.
    func withReader<T>(_ body: (StoreReader) throws -> T) throws -> T {
        let borrowed = try state.withLock { state -> StoreReader? in
            guard !state.isClosed else { throw StoreError.closedStore }
            return state.idle.popLast()
        }
        let reader: StoreReader
        do {
            reader = try borrowed ?? StoreReader(path: path, configuration: configuration)
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

    /// Closes idle readers now and borrowed ones when they come back; later reads throw.
    func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle.removeAll() }
            return state.idle
        }
        for reader in idle { reader.close() }
    }
}
