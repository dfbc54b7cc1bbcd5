import EntitlementPorts
import Entitlements
import Foundation
import SQLiteStore
@testable import StorageCore
import Synchronization
import Testing
import TestSupport

/// The store is an actor whose executor is the writer thread: its write path runs there, many
/// callers' writes still share one commit, and reads never wait for it.
@Suite struct StoreActorTests {
    /// A store on a fresh file of its own, started; the directory goes when `body` returns.
    private func withStore(_ body: (EntitlementStore) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "store-actor-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try EntitlementStore(path: directory + "/entitlements.sqlite", configuration: .init())
        store.start()
        try await body(store)
        await store.close()
    }

    private func receipt(_ n: Int) -> FactsWrite {
        Fixture.receipt("user\(n)", [Fixture.subscription("t\(n)", chain: "c\(n)")], sourceID: "r\(n)")
    }

    @Test func isolatedWorkRunsOnTheWriterThreadAndCallersDoNot() async throws {
        try await withStore { store in
            let onWriter = try await store.withWriterConnection { _ in
                store.executor.isIsolatingCurrentContext() == true
            }
            #expect(onWriter)
            #expect(store.executor.isIsolatingCurrentContext() == false)
        }
    }

    /// Writes that queue while the writer is busy join one batch: one commit (one fsync) for
    /// all of them, as before the store was an actor.
    @Test func writesQueuedWhileTheWriterIsBusyShareOneCommit() async throws {
        try await withStore { store in
            let count = 32
            let holding = Atomic(false)
            async let held: Void = store.withWriterConnection { _ in
                holding.store(true, ordering: .releasing)
                let deadline = Date().addingTimeInterval(30)
                while store.executor.pendingJobs < count, Date() < deadline { usleep(1_000) }
            }
            while !holding.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
            let before = store.statistics
            try await withThrowingTaskGroup(of: WriteOutcome.self) { group in
                for n in 0..<count { group.addTask { try await store.write(receipt(n)) } }
                for try await outcome in group { #expect(outcome.newTransactions == 1) }
            }
            try await held
            let after = store.statistics
            #expect(after.appliedWrites - before.appliedWrites == count)
            // One batch for the 32; the writer's own timed work (the change log's baseline and due
            // changes) may commit beside it in a loaded run, so the bound leaves room for that.
            #expect(after.commits - before.commits <= 3)
        }
    }

    /// Many writers at once, without holding the writer: fewer commits than writes.
    @Test func concurrentWritersShareCommits() async throws {
        try await withStore { store in
            let count = 256
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<count { group.addTask { _ = try await store.write(receipt(n)) } }
                try await group.waitForAll()
            }
            let statistics = store.statistics
            #expect(statistics.appliedWrites == count)
            #expect(statistics.commits < count)
            for n in [0, count - 1] { #expect(try store.facts(userID: "user\(n)").transactions.count == 1) }
        }
    }

    /// Reads are nonisolated: they answer while the writer thread is held busy.
    @Test func readsAnswerWhileTheWriterIsBusy() async throws {
        try await withStore { store in
            _ = try await store.write(receipt(1))
            let release = Atomic(false)
            let holding = Atomic(false)
            async let held: Void = store.withWriterConnection { _ in
                holding.store(true, ordering: .releasing)
                let deadline = Date().addingTimeInterval(30)
                while !release.load(ordering: .acquiring), Date() < deadline { usleep(1_000) }
            }
            while !holding.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
            #expect(try store.facts(userID: "user1").transactions.count == 1)
            #expect(try store.history(userID: "user1", productID: nil, pageSize: 10, pageToken: nil).events.count == 1)
            release.store(true, ordering: .releasing)
            try await held
        }
    }
}
