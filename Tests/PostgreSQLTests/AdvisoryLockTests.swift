import Foundation
import Testing
@testable import PostgreSQL

/// Session advisory locks between two connections: exclusive, released by unlock or session end.
@Suite(.enabled(if: TestDatabase.isConfigured, TestDatabase.skipReason))
struct AdvisoryLockTests {
    @Test func oneSessionAtATime() async throws {
        try await withDatabase { database in
            let a = try database.connect(), b = try database.connect()
            let key: Int64 = 0x656e_7469_746c
            #expect(try a.tryAdvisoryLock(key))
            #expect(try !b.tryAdvisoryLock(key))
            #expect(try b.tryAdvisoryLock(key + 1))
            #expect(try a.advisoryUnlock(key))
            #expect(try !a.advisoryUnlock(key))
            #expect(try b.tryAdvisoryLock(key))
            #expect(try !a.tryAdvisoryLock(key))
        }
    }

    @Test func aTerminatedSessionReleasesItsLock() async throws {
        try await withDatabase { database in
            let a = try database.connect(), b = try database.connect()
            #expect(try a.tryAdvisoryLock(7))
            try database.terminate(a)
            #expect(try b.tryAdvisoryLock(7))
        }
    }

    @Test func advisoryLockWaitsForTheHolder() async throws {
        try await withDatabase { database in
            let holder = try database.connect()
            #expect(try holder.tryAdvisoryLock(9))
            let url = database.url
            let acquired = Locked(false)
            let done = DispatchSemaphore(value: 0)
            let waiterThread = Thread {
                defer { done.signal() }
                guard let waiter = try? Connection(url: url) else { return }
                try? waiter.advisoryLock(9)
                acquired.set(true)
                _ = try? waiter.advisoryUnlock(9)
            }
            waiterThread.start()
            #expect(done.wait(timeout: .now() + 0.5) == .timedOut)
            #expect(!acquired.get())
            try holder.advisoryUnlock(9)
            #expect(done.wait(timeout: .now() + 20) == .success)
            #expect(acquired.get())
        }
    }
}

/// A value shared with a test's helper thread.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
