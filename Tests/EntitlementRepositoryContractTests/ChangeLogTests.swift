import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// The change log (issue 12): a change whenever CheckEntitlement's state for a user's chain
/// moves, written with the fact that caused it, and nothing for renewals that stay ACTIVE.
struct ChangeLogTests {
    private let bought = Fixture.purchasedAt
    private let expires = Fixture.expiresAt
    private var midPeriod: Int64 { bought + 86_400_000 }

    private func all(_ log: ChangeLoggingRepository, user: String? = nil) throws -> [EntitlementChange] {
        try log.changes(after: 0, userID: user, limit: 1_000)
    }

    private func summary(_ changes: [EntitlementChange]) -> [String] {
        changes.map { change in
            "\(change.userID) \(change.entitlement.originalTransactionID) "
                + "\(change.previousState?.rawValue ?? "-")>\(change.entitlement.state.rawValue) "
                + "@\(change.occurredAtMs - Fixture.purchasedAt) cause=\(change.causeEventID)"
        }
    }

    @Test(arguments: Backend.allCases)
    func aPurchaseIsAFirstAppearanceCausedByItsEvent(backend: Backend) async throws {
        let clock = ManualClock(midPeriod)
        try await backend.withChangeLog(clock: clock) { log in
            let seen = CommittedSequences()
            log.onChangesCommitted { seen.record($0) }
            _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            let changes = try all(log)
            #expect(summary(changes) == ["alice 1 ->active @86400000 cause=purchase:1"])
            let change = try #require(changes.first)
            #expect(change.sequence == 1)
            #expect(change.changeID.hasSuffix("-1") && change.changeID.count > 2)
            #expect(change.entitlement == EntitlementRules.entitlements(
                for: try log.facts(userID: "alice"), at: .now(midPeriod), catalog: .empty).first)
            #expect(seen.values == [1])
            #expect(try log.changeLogBounds() == (1, 1))
        }
    }

    @Test(arguments: Backend.allCases)
    func renewalsThatStayActiveAndReplaysAreNoChange(backend: Backend) async throws {
        let clock = ManualClock(midPeriod)
        try await backend.withChangeLog(clock: clock) { log in
            _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")], sourceID: "r1"))
            _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")], sourceID: "r1"))
            _ = try await log.write(Fixture.receipt(
                "alice", [Fixture.subscription("1", chain: "1"),
                          Fixture.subscription("2", chain: "1", purchasedAt: expires - 1_000)]))
            #expect(summary(try all(log)) == ["alice 1 ->active @86400000 cause=purchase:1"])
            #expect(try log.nextDueInstant() == expires - 1_000 + 2_592_000_000, "the renewal moved the due instant")
        }
    }

    @Test(arguments: Backend.allCases)
    func anExpiryIsWrittenAtItsInstantWithNoFact(backend: Backend) async throws {
        let clock = ManualClock(midPeriod)
        try await backend.withChangeLog(clock: clock) { log in
            _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            #expect(try log.nextDueInstant() == expires)
            clock.set(expires - 1)
            #expect(try await log.recordDueChanges() == 0)
            clock.set(expires + 60_000)
            #expect(try await log.recordDueChanges() == 1)
            #expect(summary(try all(log)).last == "alice 1 active>expired @2592000000 cause=")
            #expect(try log.nextDueInstant() == nil)
            #expect(try await log.recordDueChanges() == 0, "written once")
        }
    }

    @Test(arguments: Backend.allCases)
    func graceThenBillingRetryCaughtUpEachAtItsInstant(backend: Backend) async throws {
        let clock = ManualClock(midPeriod)
        let graceEnds = expires + 16 * 86_400_000
        try await backend.withChangeLog(clock: clock) { log in
            let renewal = RenewalInfo(originalTransactionID: "1", autoRenewStatus: true, isInBillingRetryPeriod: true,
                                      gracePeriodExpiresDateMs: graceEnds, signedDateMs: midPeriod)
            _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")],
                                                    renewals: [renewal]))
            clock.set(graceEnds + 3_600_000)  // the server was down across both instants
            #expect(try await log.recordDueChanges() == 2)
            #expect(summary(try all(log)).dropFirst() == [
                "alice 1 active>grace_period @2592000000 cause=",
                "alice 1 grace_period>billing_retry @\(graceEnds - bought) cause=",
            ])
        }
    }

    @Test(arguments: Backend.allCases)
    func aDueChangeIsWrittenBeforeTheFactThatFollowsIt(backend: Backend) async throws {
        let clock = ManualClock(midPeriod)
        try await backend.withChangeLog(clock: clock) { log in
            _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            clock.set(expires + 5_000)
            // Renewed after the lapse, before the timer ran: the lapse is still a change of its own.
            _ = try await log.write(Fixture.receipt(
                "alice", [Fixture.subscription("2", chain: "1", purchasedAt: expires + 4_000)]))
            #expect(summary(try all(log)) == [
                "alice 1 ->active @86400000 cause=purchase:1",
                "alice 1 active>expired @2592000000 cause=",
                "alice 1 expired>active @2592005000 cause=renewal:2",
            ])
        }
    }

    @Test(arguments: Backend.allCases)
    func aRefundAndItsReversal(backend: Backend) async throws {
        let clock = ManualClock(midPeriod)
        try await backend.withChangeLog(clock: clock) { log in
            _ = try await log.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            let refundedAt = midPeriod + 1_000
            clock.set(midPeriod + 2_000)
            _ = try await log.apply(Fixture.notification(
                "v2:refund", signedAt: refundedAt + 500,
                transactions: [Fixture.subscription("1", chain: "1", cancelledAt: refundedAt)],
                events: [Fixture.event("v2:refund", .refund, chain: "1", at: refundedAt + 500, type: "REFUND")]))
            clock.set(midPeriod + 3_000)
            _ = try await log.apply(Fixture.notification(
                "v2:reversed", signedAt: midPeriod + 2_500, reversedRefunds: ["1"]))
            #expect(summary(try all(log)).dropFirst() == [
                "alice 1 active>revoked @86402000 cause=v2:refund",
                // No event of its own: the newest of the chain in alice's history.
                "alice 1 revoked>active @86403000 cause=v2:refund",
            ])
        }
    }
}
