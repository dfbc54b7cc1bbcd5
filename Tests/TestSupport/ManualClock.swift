internal import Synchronization

/// A Unix-milliseconds clock the test moves by hand, injected wherever the code under test
/// takes a `now:` or `clock:` (`UnixClock`), so time-driven behaviour is tested without
/// sleeping and at instants the test chooses.
public final class ManualClock: Sendable {
    private let ms: Mutex<Int64>

    public init(_ ms: Int64) { self.ms = Mutex(ms) }

    /// The clock to inject.
    public var read: @Sendable () -> Int64 { { [self] in now } }

    /// The time the clock shows.
    public var now: Int64 { ms.withLock { $0 } }

    public func set(_ value: Int64) { ms.withLock { $0 = value } }

    public func advance(by delta: Int64) { ms.withLock { $0 += delta } }
}
