import Synchronization

/// Runs one computation per key at a time and shares its result with every concurrent caller.
///
/// The gateway retries and users double-tap, so identical receipts arrive together; Apple is
/// called once for all of them. Each caller can give up on its own (cancellation) without
/// stopping the shared work; the work is cancelled only when no caller is left waiting.
///
/// A flight whose last caller left is *abandoned*: its work is being cancelled and its result
/// belongs to nobody. A caller arriving then (typically a client retrying right after its
/// deadline) must not inherit that cancellation, so it starts a new flight instead of joining.
/// Joining and leaving both happen under the flight's lock, so a caller either joins before
/// the flight is abandoned (and keeps it alive) or sees it abandoned and starts afresh.
public final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private final class Flight: Sendable {
        struct State {
            var result: Result<Value, any Error>?
            /// Callers that joined and have not left, whether or not they wait yet.
            var members: Set<UInt64> = []
            var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
            var nextID: UInt64 = 0
            var work: Task<Void, Never>?
            var abandoned = false
        }
        let state = Mutex(State())

        /// A member id, or nil when the flight was abandoned and cannot be joined.
        func join() -> UInt64? {
            state.withLock { state in
                guard !state.abandoned else { return nil }
                state.nextID += 1
                state.members.insert(state.nextID)
                return state.nextID
            }
        }

        /// Removes member `id`; returns its waiting continuation (if any) and the work to cancel
        /// when it was the last member before a result.
        func leave(_ id: UInt64) -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) {
            state.withLock { state in
                guard state.members.remove(id) != nil else { return (nil, nil) }
                let continuation = state.waiters.removeValue(forKey: id)
                guard state.result == nil, state.members.isEmpty, !state.abandoned else { return (continuation, nil) }
                state.abandoned = true
                return (continuation, state.work)
            }
        }
    }

    private let flights = Mutex<[Key: Flight]>([:])

    public init() {}

    /// Calls in flight now, for metrics and tests.
    public var inFlight: Int { flights.withLock { $0.count } }

    /// Callers sharing the live flight for `key` (0 when none runs), for tests and metrics.
    public func callers(for key: Key) -> Int {
        guard let flight = flights.withLock({ $0[key] }) else { return 0 }
        return flight.state.withLock { $0.members.count }
    }

    /// The result of `work` for `key`, started now or joined if already running.
    public func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let (flight, id, isNew) = flights.withLock { flights -> (Flight, UInt64, Bool) in
            if let existing = flights[key], let id = existing.join() { return (existing, id, false) }
            let created = Flight()
            flights[key] = created
            return (created, created.join()!, true)
        }
        if isNew {
            let task = Task {
                let result: Result<Value, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                self.finish(key, flight, result)
            }
            // Every caller may have left before the task existed; then nobody else cancels it.
            let abandoned = flight.state.withLock { state -> Bool in
                state.work = task
                return state.abandoned
            }
            if abandoned { task.cancel() }
        }
        return try await wait(on: flight, key: key, id: id)
    }

    private func wait(on flight: Flight, key: Key, id: UInt64) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = flight.state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    // Left already: a caller cancelled before this point runs the handler first.
                    if !state.members.contains(id) { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            leave(flight, key: key, id: id)
        }
    }

    private func leave(_ flight: Flight, key: Key, id: UInt64) {
        let (continuation, abandon) = flight.leave(id)
        continuation?.resume(throwing: CancellationError())
        guard let abandon else { return }
        // Unlisted now, so the next caller for `key` starts live work rather than meeting this.
        flights.withLock { flights in
            if flights[key] === flight { flights[key] = nil }
        }
        abandon.cancel()
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
