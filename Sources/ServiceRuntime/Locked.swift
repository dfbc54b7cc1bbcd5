import Synchronization

/// A value behind a ``Synchronization/Mutex`` that several owners share by reference.
///
/// `Mutex` is non-copyable, so it cannot sit in an array or be handed from the store to its
/// writer; this class is the one place that boxes it. Code that owns its state outright holds
/// a `Mutex` directly. Inlinable, so callers in other modules (the store's read cache, on the
/// CheckEntitlement path) get it specialized instead of a generic call per lock.
public final class Locked<Value: Sendable>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    @inlinable public init(_ value: Value) {
        mutex = Mutex(value)
    }

    @inlinable public func withLock<T>(_ body: (inout sending Value) throws -> sending T) rethrows -> sending T {
        try mutex.withLock(body)
    }
}
