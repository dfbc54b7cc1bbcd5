@testable import EntitlementDaemon
import ServiceRuntime
import StorageCore
import Synchronization
import Testing
import TestSupport

/// The daemon's gate: duties start when the lease is acquired, stop when it is lost, in order.
struct SingletonDutiesTests {
    final class Journal: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    func duties(_ journal: Journal, log: Journal) -> SingletonDuties {
        let names = ["reconciliation", "webhooks", "store"]
        let logger = Logger(minimumLevel: .info, format: .text) { line in log.add(line) }
        return SingletonDuties(duties: names.map { name in
            .init(name: name, start: { journal.add("start \(name)") }, stop: {
                // A stop that takes a moment, as a webhook dispatcher's does.
                try? await Task.sleep(for: .milliseconds(5))
                journal.add("stop \(name)")
            })
        }, logger: logger)
    }

    @Test func startsOnAcquireStopsOnLossInOrder() async throws {
        let journal = Journal(), log = Journal()
        let singleton = duties(journal, log: log)
        let run = Task { await singleton.run() }
        #expect(!singleton.isActive)
        singleton.leaseChanged(.unavailable(reason: "connection refused"))
        singleton.leaseChanged(.acquired)
        try await eventually("the duties active") { singleton.isActive }
        singleton.leaseChanged(.lost(reason: "the session changed"))
        singleton.leaseChanged(.acquired)
        singleton.leaseChanged(.released)
        await singleton.stop()
        await run.value
        #expect(!singleton.isActive)
        let cycle = ["start reconciliation", "start webhooks", "start store",
                     "stop store", "stop webhooks", "stop reconciliation"]
        #expect(journal.all == cycle + cycle)
        let lines = log.all
        #expect(lines.contains { $0.contains("singleton lease acquired") })
        #expect(lines.contains { $0.contains("singleton lease lost") && $0.contains("the session changed") })
        #expect(lines.contains { $0.contains("cannot reach the database") })
    }

    @Test func shutdownStopsRunningDutiesAndIgnoresALaterAcquire() async throws {
        let journal = Journal(), log = Journal()
        let singleton = duties(journal, log: log)
        let run = Task { await singleton.run() }
        singleton.leaseChanged(.acquired)
        try await eventually("the duties active") { singleton.isActive }
        await singleton.stop()
        singleton.leaseChanged(.acquired)
        await run.value
        #expect(!singleton.isActive)
        #expect(journal.all.filter { $0.hasPrefix("start") }.count == 3)
        #expect(journal.all.last == "stop reconciliation")
        #expect(log.all.contains { $0.contains("singleton lease released") })
    }

    /// A startup that fails before the duties run still shuts them down, at once, and none
    /// start afterwards (the daemon stops every component it built, run or not).
    @Test func stopBeforeRunReturnsAndNothingStartsLater() async {
        let journal = Journal(), log = Journal()
        let singleton = duties(journal, log: log)
        singleton.leaseChanged(.acquired)
        await singleton.stop()
        await singleton.run()
        #expect(!singleton.isActive)
        #expect(journal.all.isEmpty)
    }
}
