import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// The change log across users: ownership transfer, chains bound late, the reads consumers
/// page with, and retention.
struct ChangeLogReadTests {
    private let midPeriod = Fixture.purchasedAt + 86_400_000

    private func states(_ changes: [EntitlementChange]) -> [String] {
        changes.map {
            "\($0.userID) \($0.entitlement.originalTransactionID) "
                + "\($0.previousState?.rawValue ?? "-")>\($0.entitlement.state.rawValue) cause=\($0.causeEventID)"
        }
    }

    @Test(arguments: Backend.allCases)
    func anOwnershipTransferIsAChangeForBothUsers(backend: Backend) async throws {
        try await backend.withChangeLog(clock: ManualClock(midPeriod)) { log in
            _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            _ = try await log.write(Fixture.receipt("bob", [Fixture.subscription("1", chain: "1")]))
            let transferEvent =
                try log.history(userID: "alice", productID: nil, pageSize: 1, pageToken: nil)
                .events.first?.eventID ?? "none"
            #expect(
                states(try log.changes(after: 1, userID: nil, limit: 10)) == [
                    "alice 1 active>revoked cause=\(transferEvent)",
                    "bob 1 ->active cause=\(transferEvent)",
                ])
            let lost = try #require(try log.changes(after: 0, userID: "alice", limit: 10).last)
            #expect(lost.entitlement.productID == "com.example.monthly")
            #expect(lost.entitlement.willAutoRenew == false)
            // Submitted again by alice: she regains it, bob loses it.
            _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            #expect(
                states(try log.changes(after: 3, userID: nil, limit: 10)).map { $0.prefix(27) } == [
                    "alice 1 revoked>active caus", "bob 1 active>revoked cause=",
                ])
        }
    }

    @Test(arguments: Backend.allCases)
    func aChainBoundLateAppearsWithTheEventItAdopted(backend: Backend) async throws {
        try await backend.withChangeLog(clock: ManualClock(midPeriod)) { log in
            _ = try await log.apply(
                Fixture.notification(
                    "v2:renewal-off", transactions: [Fixture.subscription("1", chain: "1")],
                    events: [
                        Fixture.event(
                            "v2:renewal-off", .autoRenewDisabled, chain: "1",
                            at: Fixture.purchasedAt + 2_000)
                    ]))
            #expect(try log.changes(after: 0, userID: nil, limit: 10) == [], "nobody owns the chain yet")
            _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            #expect(
                states(try log.changes(after: 0, userID: nil, limit: 10)) == ["alice 1 ->active cause=v2:renewal-off"])
        }
    }

    @Test(arguments: Backend.allCases)
    func readsFilterByUserAndPageFromACursor(backend: Backend) async throws {
        try await backend.withChangeLog(clock: ManualClock(midPeriod)) { log in
            for (index, user) in ["alice", "bob", "alice", "carol"].enumerated() {
                let id = "\(index + 1)"
                _ = try await log.write(Fixture.receipt(user, [Fixture.subscription(id, chain: id)]))
            }
            #expect(try log.changes(after: 0, userID: nil, limit: 10).map(\.sequence) == [1, 2, 3, 4])
            #expect(try log.changes(after: 1, userID: nil, limit: 2).map(\.sequence) == [2, 3])
            #expect(try log.changes(after: 0, userID: "alice", limit: 10).map(\.sequence) == [1, 3])
            #expect(try log.changes(after: 1, userID: "alice", limit: 10).map(\.sequence) == [3])
            #expect(try log.changes(after: 0, userID: "nobody", limit: 10) == [])
            #expect(try log.changes(after: 0, userID: nil, limit: 0) == [])
            #expect(try log.changes(after: 4, userID: nil, limit: 10) == [])
            let ids = try log.changes(after: 0, userID: nil, limit: 10).map(\.changeID)
            #expect(Set(ids).count == 4)
            #expect(try log.changes(after: 0, userID: nil, limit: 10).map(\.changeID) == ids, "stable")
        }
    }

    @Test(arguments: Backend.allCases)
    func pruningKeepsOneUnbrokenRangeAndNeverReusesASequence(backend: Backend) async throws {
        let clock = ManualClock(midPeriod)
        try await backend.withChangeLog(clock: clock) { log in
            #expect(try log.changeLogBounds() == (1, 0), "empty: the next change is 1")
            for index in 1...3 {
                clock.set(midPeriod + Int64(index) * 1_000)
                _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("\(index)", chain: "\(index)")]))
            }
            #expect(try await log.pruneChanges(occurredBefore: midPeriod + 2_500, limit: 1) == 1)
            #expect(try log.changeLogBounds() == (2, 3))
            #expect(try await log.pruneChanges(occurredBefore: midPeriod + 2_500, limit: 10) == 1)
            #expect(try log.changeLogBounds() == (3, 3))
            #expect(try await log.pruneChanges(occurredBefore: .max, limit: 10) == 1)
            #expect(try log.changeLogBounds() == (4, 3))
            #expect(try log.changes(after: 0, userID: nil, limit: 10) == [])
            _ = try await log.write(Fixture.receipt("bob", [Fixture.subscription("9", chain: "9")]))
            #expect(try log.changes(after: 3, userID: nil, limit: 10).map(\.sequence) == [4])
            #expect(try log.changeLogBounds() == (4, 4))
        }
    }
}
