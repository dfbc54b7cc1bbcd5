import EntitlementPorts
import Entitlements
import Foundation
import ServiceRuntime
import SQLiteStore
import StorageCore
import Synchronization
import TestSupport
import XCTest

/// The SQLite store's own due timer: time-driven changes with no call from anyone, at their
/// instant while serving, and caught up after a restart, durably through the writer.
final class ChangeTimerTests: StoreTestCase {
    private static let purchasedAt: Int64 = 1_700_000_000_000
    private static let expiresAt = purchasedAt + 2_592_000_000

    /// Sequences the store reports committed, with the wall-clock ms each report arrived at.
    private final class Reports: Sendable {
        private let seen = Mutex<[(sequence: Int64, atMs: Int64)]>([])
        func record(_ sequence: Int64) { seen.withLock { $0.append((sequence, WallClock.unixMilliseconds())) } }
        var values: [(sequence: Int64, atMs: Int64)] { seen.withLock { $0 } }
    }

    private func open(
        clock: @escaping UnixClock, reports: ChangeLogReporting = ChangeLogReporting(),
        retentionMs: Int64? = nil, dueTimer: Bool = true
    ) throws -> EntitlementStore {
        var configuration = EntitlementStore.Configuration(clock: clock)
        configuration.changeLogReporting = reports
        configuration.changeRetentionMs = retentionMs
        configuration.dueTimer = dueTimer
        let store = try EntitlementStore(path: databasePath, configuration: configuration)
        store.start()
        return store
    }

    func testAnExpiryIsWrittenAtItsInstantWithoutAnyCall() async throws {
        let lags = Mutex<[Double]>([])
        let store = try open(
            clock: WallClock.unixMilliseconds,
            reports: ChangeLogReporting(dueLag: { lag in lags.withLock { $0.append(lag) } }))
        let reports = Reports()
        store.onChangesCommitted { reports.record($0) }
        let now = WallClock.unixMilliseconds()
        let expiry = now + 1_500
        _ = try await store.write(
            Fixture.receipt(
                "alice",
                [
                    Transaction(
                        transactionID: "1", originalTransactionID: "1", productID: "com.example.monthly",
                        purchaseDateMs: now - 1_000,
                        expiresDateMs: expiry, declaredProductType: .autoRenewable)
                ]))
        XCTAssertEqual(try store.nextDueInstant(), expiry)

        // A reader sees the commit before the writer wakes the log's observers (it does so
        // after COMMIT), so wait for the report too, not only for the row.
        try await eventually("the expiry written and reported") {
            try store.changes(after: 1, userID: nil, limit: 10).count == 1
                && reports.values.contains { $0.sequence == 2 }
        }
        let expired = try XCTUnwrap(try store.changes(after: 1, userID: nil, limit: 10).first)
        XCTAssertEqual(expired.entitlement.state, .expired)
        XCTAssertEqual(expired.previousState, .active)
        XCTAssertEqual(expired.occurredAtMs, expiry, "dated at the instant, not when written")
        XCTAssertEqual(expired.causeEventID, "")
        let committedAt = try XCTUnwrap(reports.values.first { $0.sequence == 2 }?.atMs)
        // Within 1 s of the instant is the goal; the bound is wide because CI machines stall.
        XCTAssertLessThan(committedAt - expiry, 5_000, "written \(committedAt - expiry) ms after the instant")
        XCTAssertGreaterThanOrEqual(committedAt, expiry, "never before its instant")
        XCTAssertEqual(lags.withLock { $0.count }, 1)
        XCTAssertNil(try store.nextDueInstant())
        await store.close()
    }

    func testInstantsPassedWhileDownAreCaughtUpAtStartupAtTheirInstants() async throws {
        let clock = ManualClock(Self.purchasedAt + 1_000)
        var store = try open(clock: clock.read)
        let renewal = RenewalInfo(
            originalTransactionID: "1", autoRenewStatus: true, isInBillingRetryPeriod: true,
            gracePeriodExpiresDateMs: Self.expiresAt + 86_400_000,
            signedDateMs: Self.purchasedAt)
        _ = try await store.write(
            Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")], renewals: [renewal]))
        await store.close()

        clock.set(Self.expiresAt + 10 * 86_400_000)
        store = try open(clock: clock.read)
        try await eventually("three changes caught up") {
            try store.changes(after: 0, userID: nil, limit: 10).count == 3
        }
        let changes = try store.changes(after: 0, userID: nil, limit: 10)
        XCTAssertEqual(changes.map(\.entitlement.state), [.active, .gracePeriod, .billingRetry])
        XCTAssertEqual(
            changes.map(\.occurredAtMs),
            [Self.purchasedAt + 1_000, Self.expiresAt, Self.expiresAt + 86_400_000])
        await store.close()
    }

    func testAFactThatMakesTheInstantMootMovesIt() async throws {
        // The test moves the clock past the first expiry and asks for what is due itself.
        let clock = ManualClock(Self.purchasedAt)
        let now = clock.now
        let store = try open(clock: clock.read, dueTimer: false)
        let first = Transaction(
            transactionID: "1", originalTransactionID: "1", productID: "p", purchaseDateMs: now - 1_000,
            expiresDateMs: now + 1_000, declaredProductType: .autoRenewable)
        var renewed = first
        renewed.transactionID = "2"
        renewed.purchaseDateMs = now
        renewed.expiresDateMs = now + 3_600_000
        _ = try await store.write(Fixture.receipt("alice", [first]))
        _ = try await store.write(Fixture.receipt("alice", [renewed]))
        XCTAssertEqual(try store.nextDueInstant(), now + 3_600_000)
        clock.advance(by: 1_500)
        let written = try await store.recordDueChanges()
        XCTAssertEqual(written, 0, "nothing is due at the moot instant")
        XCTAssertEqual(
            try store.changes(after: 0, userID: nil, limit: 10).map(\.entitlement.state), [.active],
            "the renewal made the first expiry moot: no change at it")
        await store.close()
    }

    func testTheBackgroundPruneKeepsOnlyTheRetentionWindow() async throws {
        let clock = ManualClock(Self.purchasedAt)
        let pruned = Mutex(0)
        var store = try open(clock: clock.read)
        for index in 1...5 {
            clock.set(Self.purchasedAt + Int64(index) * 86_400_000)
            _ = try await store.write(
                Fixture.receipt("u\(index)", [Fixture.subscription("\(index)", chain: "\(index)")]))
        }
        await store.close()
        // Reopened with 2.5 days of retention at day 5: days 1 and 2 go, by the writer alone.
        store = try open(
            clock: clock.read, reports: ChangeLogReporting(pruned: { count in pruned.withLock { $0 += count } }),
            retentionMs: 2 * 86_400_000 + 43_200_000)
        // The writer reports a prune after its COMMIT, which readers may see first: wait for both.
        try await eventually("days 1 and 2 pruned and reported") {
            try store.changeLogBounds().oldestRetained == 3 && pruned.withLock { $0 } == 2
        }
        XCTAssertEqual(try store.changeLogBounds().oldestRetained, 3)
        XCTAssertEqual(try store.changeLogBounds().latest, 5)
        XCTAssertEqual(pruned.withLock { $0 }, 2)
        XCTAssertEqual(try store.changes(after: 0, userID: nil, limit: 10).map(\.sequence), [3, 4, 5])
        await store.close()
    }
}

/// Users who predate the change log get heads by themselves, announcing nothing.
final class ChangeBaselineTests: StoreTestCase {
    func testUsersFromBeforeTheChangeLogGetHeadsSoTheirExpiriesAreDue() async throws {
        try Version3Database.create(at: databasePath)
        // Alice's period (1700000000000 + 30 days) is running at this clock.
        let clock = ManualClock(1_700_000_000_000 + 86_400_000)
        var configuration = EntitlementStore.Configuration(clock: clock.read)
        configuration.changeRetentionMs = nil
        configuration.dueTimer = false
        let store = try EntitlementStore(path: databasePath, configuration: configuration)
        store.start()
        try await eventually("the baseline made alice's expiry due") { try store.nextDueInstant() != nil }
        XCTAssertEqual(try store.nextDueInstant(), 1_702_592_000_000, "alice's expiry is due")
        XCTAssertEqual(try store.changes(after: 0, userID: nil, limit: 10), [], "the baseline announces nothing")

        // Her next fact announces only what it changes: nothing for a renewal-info update.
        _ = try await store.write(Fixture.receipt("alice", [], renewals: [RenewalInfo(
            originalTransactionID: "1000", autoRenewStatus: false, signedDateMs: 10)]))
        XCTAssertEqual(try store.changes(after: 0, userID: nil, limit: 10), [])
        clock.set(1_702_592_000_000 + 1)
        let written = try await store.recordDueChanges()
        XCTAssertEqual(written, 1)
        let expired = try store.changes(after: 0, userID: "alice", limit: 10)
        XCTAssertEqual(expired.map(\.previousState), [.active])
        XCTAssertEqual(expired.map(\.entitlement.state), [.expired])
        await store.close()
    }
}
