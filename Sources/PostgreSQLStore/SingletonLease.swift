import PostgreSQL
import ServiceRuntime
import StorageCore
import Synchronization

/// "Exactly one replica runs this": a session advisory lock on a dedicated connection, held as
/// a lease for as long as that session lives.
///
/// Every replica runs one lease on the same `key`; one holds it, the others try again every
/// ``Configuration/retryIntervalMs``. A holder that dies (kill -9, crash) ends its session, so
/// PostgreSQL releases the lock and the next attempt elsewhere takes over within about a retry
/// interval. A holder that vanishes without closing its socket (host down, network cut) is
/// noticed by TCP keepalives, set on both ends of the connection (see ``leaseURL(_:)``), within
/// about ten seconds. The holder checks its session every interval and reports
/// ``Change/lost(reason:)`` when it broke, since a new session holds nothing; it stops its
/// duties then, at about the time the server frees the lock for the others.
///
/// It runs on its own thread: libpq blocks. Callbacks come from that thread, in order. The
/// PostgreSQL gateway offers only the lock itself (``PostgreSQL/Connection/tryAdvisoryLock(_:)``);
/// the retrying, the session check and the duties' protocol are the store side's. The daemon
/// gets one from its store (``StoreBackend/makeSingletonLease(onChange:)``).
public final class SingletonLease: SingletonDutiesLease {
    /// What the owner learns, in order (``SingletonLeaseChange``).
    public typealias Change = SingletonLeaseChange

    public struct Configuration: Sendable {
        public var url: ConnectionURL
        public var key: Int64
        public var retryIntervalMs: Int64

        public init(url: ConnectionURL, key: Int64 = SingletonLease.defaultKey, retryIntervalMs: Int64 = 1_000) {
            self.url = url
            self.key = key
            self.retryIntervalMs = retryIntervalMs
        }
    }

    /// The advisory lock key every entitlementd replica uses ("entitl" in ASCII).
    public static let defaultKey: Int64 = 0x656e_7469_746c

    private let configuration: Configuration
    private let onChange: @Sendable (Change) -> Void
    private let held = Atomic(false)
    private let stopping = Atomic(false)
    private let wake = ConditionLock()
    private let stopped = Latch()
    private let started = Atomic(false)

    public init(configuration: Configuration, onChange: @escaping @Sendable (Change) -> Void) {
        self.configuration = configuration
        self.onChange = onChange
    }

    /// Whether this process holds the lease now.
    public var isHeld: Bool { held.load(ordering: .acquiring) }

    /// Tries, holds and checks the lease on its own thread until ``stop()``; call once.
    public func run() async {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        ServiceThread.detach { [self] in
            loop()
            stopped.open()
        }
        await stopped.wait()
    }

    /// Releases the lease (reporting ``Change/released`` if held) and ends ``run()``; returns
    /// once the thread has finished. Stop the duties first: after this, another replica may
    /// take over at once.
    public func stop() async {
        stopping.store(true, ordering: .releasing)
        wake.withLock { wake.signal() }
        if started.load(ordering: .acquiring) { await stopped.wait() }
    }

    /// The URL of the lease's own connection: the caller's, plus keepalives on both ends
    /// (``ConnectionURL/detectingDeadPeers()``), so the server drops a vanished holder's
    /// session (and its lock) without waiting for the kernel, and a holder notices in seconds.
    public static func leaseURL(_ url: ConnectionURL) -> ConnectionURL {
        url.detectingDeadPeers().setting("application_name", to: url["application_name"] ?? "singleton-lease")
    }

    private func loop() {
        let url = Self.leaseURL(configuration.url)
        var connection: PostgreSQL.Connection?
        var heldSession = -1
        var reportedUnavailable = false
        while !stopping.load(ordering: .acquiring) {
            do {
                let current = try connection ?? PostgreSQL.Connection(url: url)
                connection = current
                if isHeld {
                    // A reconnect would be a new session, which holds nothing.
                    guard try current.scalarInt64("SELECT 1") == 1, current.session == heldSession else {
                        throw PostgreSQLError(kind: .connectionLost, sqlState: nil, message: "the session changed")
                    }
                } else if try current.tryAdvisoryLock(configuration.key) {
                    heldSession = current.session
                    held.store(true, ordering: .releasing)
                    onChange(.acquired)
                }
                reportedUnavailable = false
            } catch {
                if isHeld {
                    held.store(false, ordering: .releasing)
                    onChange(.lost(reason: "\(error)"))
                } else if !reportedUnavailable {
                    reportedUnavailable = true
                    onChange(.unavailable(reason: "\(error)"))
                }
            }
            sleepUntilNextAttempt()
        }
        if isHeld {
            _ = try? connection?.advisoryUnlock(configuration.key)
            held.store(false, ordering: .releasing)
            onChange(.released)
        }
        connection?.close()
    }

    private func sleepUntilNextAttempt() {
        let deadline = ContinuousClock.now + .milliseconds(configuration.retryIntervalMs)
        wake.withLock {
            while !stopping.load(ordering: .acquiring) {
                let remaining = (deadline - ContinuousClock.now).components
                let milliseconds = remaining.seconds * 1000 + remaining.attoseconds / 1_000_000_000_000_000
                guard milliseconds > 0 else { return }
                _ = wake.wait(milliseconds: milliseconds)
            }
        }
    }
}
