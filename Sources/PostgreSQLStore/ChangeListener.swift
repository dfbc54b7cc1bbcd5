import Glibc
import PostgreSQL
import ServiceRuntime
import StorageCore
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
/// skipped: the writer already refreshed or dropped them and announced before answering. Each
/// invalidation here is counted (``FactsCache/invalidateForOtherWriter(_:)``) so that this
/// replica's writer never refreshes a user with facts older than another replica's commit.
///
/// While the connection is down, or the database refuses writes (a standby, or read-only), the
/// replica is ``StoreReadiness/unavailable(reason:)``. While the connection is down it
/// cannot hear the others' writes (its cache is cleared every attempt, so reads go to a
/// database it likely cannot reach either), and the listener is the one connection always open
/// and watched, retried every 250 ms, so "connected" means "the database answers now". Its
/// connection has TCP keepalives (``PostgreSQL/ConnectionURL/detectingDeadPeers()``), so a
/// database host that vanishes without closing the socket is noticed in about ten seconds.
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
    private let onChange: (@Sendable (StoreReadiness) -> Void)?
    private let state = Locked(StoreReadiness.ready)
    /// Whether the outage last told to the owner was a read-only database (listener thread only).
    private var reportedReadOnly = false
    private let stopped = Atomic<Bool>(false)
    private let finished = Locked<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Connects and LISTENs now (so the store serves coherent reads from its first one); the
    /// thread starts with ``start()``. `onChange` is told (with reasons without the password)
    /// when the connection dropped and when it listens again.
    init(url: ConnectionURL, replicaID: String, cache: FactsCache, announce: @escaping @Sendable (Int64) -> Void,
         latestSequence: @escaping @Sendable () -> Int64?,
         onChange: (@Sendable (StoreReadiness) -> Void)?) throws {
        self.replicaID = replicaID
        self.cache = cache
        self.announce = announce
        self.latestSequence = latestSequence
        self.onChange = onChange
        let named = url["application_name"] == nil ? url.setting("application_name", to: "entitlementd-listener") : url
        connection = try PostgreSQL.Connection(url: named.detectingDeadPeers())
        try connection.listen(Self.usersChannel)
        try connection.listen(Self.changesChannel)
    }

    /// `.unavailable` from the moment the connection dropped until it listens again.
    var readiness: StoreReadiness { state.withLock { $0 } }

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
        var nextWritableCheck = ContinuousClock.now
        while !stopped.load(ordering: .acquiring) {
            do {
                if !connected {
                    // Reconnects and LISTENs again (the connection remembers its channels).
                    try connection.execute("SELECT 1")
                    connected = true
                    cache.invalidateAllForOtherWriters()
                    if let latest = latestSequence() { announce(latest) }
                    nextWritableCheck = .now
                }
                if ContinuousClock.now >= nextWritableCheck {
                    nextWritableCheck = .now + Self.writableCheckInterval
                    let readOnly = try readOnlyReason()
                    report(readOnly.map { .unavailable(reason: $0) } ?? .ready, readOnly: readOnly != nil)
                }
                for (channel, payload) in try connection.waitForNotifications(timeoutMs: 250) {
                    receive(channel: channel, payload: payload)
                }
            } catch {
                cache.invalidateAllForOtherWriters()
                report(.unavailable(reason: connected
                    ? "the PostgreSQL LISTEN connection dropped, reconnecting: \(error)"
                    : "cannot reach PostgreSQL to LISTEN again, retrying every 250 ms: \(error)"))
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

    /// How often the listener asks whether the database still takes writes: a primary demoted
    /// to a standby by a failover, or one set read-only by an operator, answers every write with
    /// an error while its connections stay healthy, and only asking tells.
    static let writableCheckInterval = Duration.seconds(1)

    /// Why the database refuses writes now, or nil when it takes them. A new session's
    /// `transaction_read_only` follows `default_transaction_read_only` (ALTER SYSTEM and a
    /// reload reach this long-lived session too).
    private func readOnlyReason() throws(PostgreSQLError) -> String? {
        let answer = try connection.scalarString("""
            SELECT CASE WHEN pg_is_in_recovery() THEN 'a standby (in recovery)'
                        WHEN current_setting('transaction_read_only') = 'on' THEN 'read-only'
                        ELSE '' END
            """) ?? ""
        return answer.isEmpty ? nil : "PostgreSQL is \(answer): writes would fail, checking again every second"
    }

    /// Records `readiness` (the newest reason while down) and tells the owner when the store
    /// went down or came back, or went from unreachable to read-only or back (the operator
    /// needs the cause), not on every failed retry.
    private func report(_ readiness: StoreReadiness, readOnly: Bool = false) {
        let changed = state.withLock { current in
            defer { current = readiness }
            return (current == .ready) != (readiness == .ready)
        }
        let causeChanged = readiness != .ready && readOnly != reportedReadOnly
        reportedReadOnly = readiness != .ready && readOnly
        if changed || causeChanged { onChange?(readiness) }
    }

    func receive(channel: String, payload: String) {
        guard let message = ReplicaNotification(channel: channel, payload: payload),
              message.replicaID != replicaID else { return }
        switch message.content {
        case .users(let users): cache.invalidateForOtherWriter(users)
        case .allUsers: cache.invalidateAllForOtherWriters()
        case .latestSequence(let sequence): announce(sequence)
        }
    }

    private static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 { request = remaining }
    }
}
