import Synchronization

/// A value behind a ``Synchronization/Mutex`` that several owners share by reference.
///
/// `Mutex` is non-copyable, so it cannot sit in an array or be handed from the store to its
/// writer; this class is the one place that boxes it. Code that owns its state outright holds
/// a `Mutex` directly.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) {
        mutex = Mutex(value)
    }

    public func withLock<T>(_ body: (inout sending Value) throws -> sending T) rethrows -> sending T {
        try mutex.withLock(body)
    }
}
