import Glibc
import PostgreSQL
import ServiceRuntime
import Synchronization

/// One replica's ear on the others: a dedicated PostgreSQL connection LISTENing for the users
/// whose facts another replica changed and for the change log's newest sequence.
///
/// Each notification invalidates those users in this replica's ``FactsCache`` and wakes the
/// change observers (Watch streams, the webhook feeder). NOTIFY is delivered only on COMMIT and
/// in commit order, so a replica drops a user's facts right after another commits them. If the
/// connection drops, notifications sent meanwhile are lost: the listener clears the whole cache,
/// keeps clearing it while it cannot reconnect, and clears it once more when it listens again
/// (a read between the drop and the new LISTEN may have cached what changed meanwhile), then
/// announces the newest sequence so observers catch up. Its own replica's notifications are
/// skipped: the writer already invalidated and announced before answering.
final class ChangeListener: @unchecked Sendable {
    static let usersChannel = "entitlementd_users"
    static let changesChannel = "entitlementd_changes"
    /// pg_notify refuses payloads of 8000 bytes or more.
    static let maxPayloadBytes = 7_900

    let replicaID: String
    private let connection: PostgreSQL.Connection
    private let cache: FactsCache
    private let announce: @Sendable (Int64) -> Void
    private let latestSequence: @Sendable () -> Int64?
    private let onDrop: (@Sendable (String) -> Void)?
    private let stopped = Atomic<Bool>(false)
    private let finished = Locked<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Connects and LISTENs now (so the store serves coherent reads from its first one); the
    /// thread starts with ``start()``. `onDrop` is told (with a message without the password)
    /// when the connection dropped.
    init(url: ConnectionURL, replicaID: String, cache: FactsCache, announce: @escaping @Sendable (Int64) -> Void,
         latestSequence: @escaping @Sendable () -> Int64?, onDrop: (@Sendable (String) -> Void)?) throws {
        self.replicaID = replicaID
        self.cache = cache
        self.announce = announce
        self.latestSequence = latestSequence
        self.onDrop = onDrop
        connection = try PostgreSQL.Connection(url: url)
        try connection.listen(Self.usersChannel)
        try connection.listen(Self.changesChannel)
    }

    func start() {
        ServiceThread.detach { self.run() }
    }

    /// Asks the thread to stop (within a wait, 250 ms) without waiting for it.
    func requestStop() {
        stopped.store(true, ordering: .releasing)
    }

    /// Asks the thread to stop and waits until it has closed its connection.
    func stop() async {
        requestStop()
        await withCheckedContinuation { continuation in
            let done = finished.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    private func run() {
        var connected = true
        while !stopped.load(ordering: .acquiring) {
            do {
                if !connected {
                    // Reconnects and LISTENs again (the connection remembers its channels).
                    try connection.execute("SELECT 1")
                    connected = true
                    cache.invalidateAll()
                    if let latest = latestSequence() { announce(latest) }
                }
                for (channel, payload) in try connection.waitForNotifications(timeoutMs: 250) {
                    receive(channel: channel, payload: payload)
                }
            } catch {
                cache.invalidateAll()
                if connected { onDrop?(String(describing: error)) }
                connected = false
                Self.sleep(milliseconds: 250)
            }
        }
        connection.close()
        let waiters = finished.withLock { state in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func receive(channel: String, payload: String) {
        guard let message = ReplicaNotification(channel: channel, payload: payload),
              message.replicaID != replicaID else { return }
        switch message.content {
        case .users(let users): cache.invalidate(users)
        case .allUsers: cache.invalidateAll()
        case .latestSequence(let sequence): announce(sequence)
        }
    }

    private static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 { request = remaining }
    }
}
