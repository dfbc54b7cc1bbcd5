import Synchronization

/// Runs one computation per key at a time and shares its result with every concurrent caller.
///
/// The gateway retries and users double-tap, so identical receipts arrive together; Apple is
/// called once for all of them. Each caller can give up on its own (cancellation) without
/// stopping the shared work; the work is cancelled only when no caller is left waiting.
public final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private final class Flight: Sendable {
        struct State {
            var result: Result<Value, any Error>?
            var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
            var nextID: UInt64 = 0
            var work: Task<Void, Never>?
        }
        let state = Mutex(State())
    }

    private let flights = Mutex<[Key: Flight]>([:])

    public init() {}

    /// Calls in flight now, for metrics and tests.
    public var inFlight: Int { flights.withLock { $0.count } }

    /// The result of `work` for `key`, started now or joined if already running.
    public func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let (flight, isNew) = flights.withLock { flights -> (Flight, Bool) in
            if let existing = flights[key] { return (existing, false) }
            let created = Flight()
            flights[key] = created
            return (created, true)
        }
        if isNew {
            let task = Task {
                let result: Result<Value, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                self.finish(key, flight, result)
            }
            flight.state.withLock { $0.work = task }
        }
        return try await wait(on: flight)
    }

    private func wait(on flight: Flight) async throws -> Value {
        let id = flight.state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = flight.state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let (continuation, abandon) = flight.state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
                let removed = state.waiters.removeValue(forKey: id)
                let abandon = state.result == nil && state.waiters.isEmpty && removed != nil ? state.work : nil
                return (removed, abandon)
            }
            continuation?.resume(throwing: CancellationError())
            abandon?.cancel()
        }
    }

    private func finish(_ key: Key, _ flight: Flight, _ result: Result<Value, any Error>) {
        flights.withLock { flights in
            if flights[key] === flight { flights[key] = nil }
        }
        let waiters = flight.state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            state.result = result
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
