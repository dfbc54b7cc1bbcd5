import AppStoreServerAPI
import EntitlementMemoryStore
import EntitlementPorts
@testable import EntitlementService
import Entitlements
import JWS
import ServiceRuntime
import Synchronization
import TestSupport
import XCTest

/// Reconciliation: what the webhook missed is applied once, the watermark moves only after a
/// complete, durable run, and runs never overlap.
final class NotificationReconcilerTests: XCTestCase {
    private typealias N = AppleNotifications
    private static let day: Int64 = 86_400_000
    private static let hour: Int64 = 3_600_000

    private struct Setup {
        let harness: IngestorHarness
        let store: InMemoryEntitlementStore
        let history: ScriptedNotificationHistory
        let reconciler: NotificationReconciler
        let reports: ReportLog
    }

    private func setup(pageSize: Int = 2, gate: Latch? = nil, clock: @escaping UnixClock = Harness.clock)
        throws -> Setup {
        let store = InMemoryEntitlementStore(clock: Harness.clock)
        let harness = try IngestorHarness(repository: store)
        let history = ScriptedNotificationHistory(pageSize: pageSize, gate: gate)
        let reports = ReportLog()
        let reconciler = NotificationReconciler(
            source: history, ingestor: harness.ingestor, progress: store,
            logger: Logger(minimumLevel: .error, sink: { _ in }), now: clock,
            observe: { report in reports.append(report) })
        return Setup(harness: harness, store: store, history: history, reconciler: reconciler, reports: reports)
    }

    func testAMissedRefundIsAppliedOnceAndTheNextRunFindsOnlyDuplicates() async throws {
        let s = try setup()
        let bought = N.subscription("1", chain: "1")
        _ = try await s.harness.receipt("alice", [bought])
        let subscribed = try s.harness.notifications.v2("uuid-sub", "SUBSCRIBED", transaction: bought)
        let refund = try s.harness.notifications.v2(
            "uuid-refund", "REFUND", transaction: N.subscription("1", chain: "1", cancelledAt: Harness.now - 1000))
        let awaited1 = await s.harness.status(subscribed)
        XCTAssertEqual(awaited1, 200, "the webhook got this one")
        s.history.hold(subscribed)
        s.history.hold(refund)  // ...but never this one

        let first = try await s.reconciler.reconcile()
        XCTAssertTrue(first.succeeded)
        let sandbox = try XCTUnwrap(first.environments.first { $0.environment == .sandbox })
        XCTAssertEqual([sandbox.found, sandbox.applied, sandbox.duplicate, sandbox.rejected], [2, 1, 1, 0])
        XCTAssertEqual(sandbox.startMs, Harness.now - 7 * Self.day, "the first run looks back 7 days")
        XCTAssertTrue(sandbox.watermarkAdvanced)
        XCTAssertNotNil(try s.store.facts(userID: "alice").transactions.first?.cancellationDateMs)
        let watermark = try await s.store.reconciledThrough(.sandbox)
        XCTAssertEqual(watermark, Harness.now)
        let productionWatermark = try await s.store.reconciledThrough(.production)
        XCTAssertEqual(productionWatermark, Harness.now, "an empty history completes")

        let second = try await s.reconciler.reconcile()
        XCTAssertEqual([second.applied, second.duplicate], [0, 2], "idempotent")
        let window = try XCTUnwrap(s.history.requests.last { $0.environment == .sandbox })
        XCTAssertEqual(window.startMs, Harness.now - Self.hour, "watermark minus the overlap")
        XCTAssertEqual(s.reports.count, 2)
    }

    func testEveryPageIsReadAndEachNotificationAppliedOnce() async throws {
        let s = try setup(pageSize: 2)
        _ = try await s.harness.receipt("alice", [N.subscription("1", chain: "1")])
        for index in 0..<5 {
            s.history.hold(try s.harness.notifications.v2(
                "uuid-\(index)", "DID_RENEW", transaction: N.subscription("\(index + 2)", chain: "1")))
        }
        let report = try await s.reconciler.reconcile()
        let sandbox = try XCTUnwrap(report.environments.first { $0.environment == .sandbox })
        XCTAssertEqual([sandbox.pages, sandbox.found, sandbox.applied], [3, 5, 5])
        XCTAssertEqual(s.history.requests.filter { $0.environment == .sandbox }.map(\.paginationToken),
                       [nil, "2", "4"])
        XCTAssertEqual(try s.store.facts(userID: "alice").transactions.count, 6)
    }

    func testAFailedPageLeavesTheWatermarkAndTheNextRunAsksTheSameWindowAgain() async throws {
        let clock = ManualClock(Harness.now)
        let s = try setup(pageSize: 1, clock: clock.read)
        try await s.store.recordReconciled(.sandbox, through: Harness.now - Self.day)
        _ = try await s.harness.receipt("alice", [N.subscription("1", chain: "1")])
        for (uuid, id) in [("uuid-a", "2"), ("uuid-b", "3")] {
            let renewal = N.subscription(id, chain: "1")
            s.history.hold(try s.harness.notifications.v2(uuid, "DID_RENEW", transaction: renewal))
        }
        // Page 1 arrives and is applied; page 2 fails (the client gave up after its retries).
        s.history.fail(.sandbox, request: 2, with: ServerAPIError(.unavailable, "Apple answered 503; retry later"))
        let report = try await s.reconciler.reconcile()
        let sandbox = try XCTUnwrap(report.environments.first { $0.environment == .sandbox })
        XCTAssertEqual(sandbox.error, "Apple answered 503; retry later")
        XCTAssertEqual(sandbox.applied, 1, "what page 1 held is durably applied")
        XCTAssertFalse(sandbox.watermarkAdvanced)
        XCTAssertFalse(report.succeeded)
        let sandboxWatermark = try await s.store.reconciledThrough(.sandbox)
        XCTAssertEqual(sandboxWatermark, Harness.now - Self.day, "unchanged")
        let productionWatermark = try await s.store.reconciledThrough(.production)
        XCTAssertEqual(productionWatermark, Harness.now, "production completed")

        clock.advance(by: Self.hour)
        let retry = try await s.reconciler.reconcile()
        let again = try XCTUnwrap(retry.environments.first { $0.environment == .sandbox })
        XCTAssertNil(again.error)
        XCTAssertEqual(again.startMs, Harness.now - Self.day - Self.hour, "from the old watermark")
        XCTAssertEqual([again.applied, again.duplicate], [1, 1])
        let advanced = try await s.store.reconciledThrough(.sandbox)
        XCTAssertEqual(advanced, Harness.now + Self.hour)
    }

    func testForgedPayloadsAreRejectedAndStoreNothing() async throws {
        let s = try setup()
        _ = try await s.harness.receipt("alice", [N.subscription("1", chain: "1")])
        let stranger = try AppleNotifications()  // another PKI: its root is not trusted
        s.history.hold(try stranger.v2("uuid-forged", "REFUND",
                                       transaction: N.subscription("1", chain: "1", cancelledAt: Harness.now)))
        let report = try await s.reconciler.reconcile()
        XCTAssertEqual([report.found, report.applied, report.rejected], [1, 0, 1])
        XCTAssertTrue(report.succeeded, "a never-valid payload does not hold the watermark back")
        XCTAssertNil(try s.store.facts(userID: "alice").transactions.first?.cancellationDateMs)
    }

    func testAnOnDemandWindowNeverMovesTheWatermarkBackwards() async throws {
        let s = try setup()
        try await s.store.recordReconciled(.production, through: Harness.now + Self.day)
        let report = try await s.reconciler.reconcile(sinceMs: Harness.now - 3 * Self.day)
        XCTAssertEqual(report.environments.map(\.startMs), [Harness.now - 3 * Self.day, Harness.now - 3 * Self.day])
        let productionWatermark = try await s.store.reconciledThrough(.production)
        XCTAssertEqual(productionWatermark, Harness.now + Self.day)
        let sandboxWatermark = try await s.store.reconciledThrough(.sandbox)
        XCTAssertEqual(sandboxWatermark, Harness.now)
        let ancient = try await s.reconciler.reconcile(sinceMs: 0)
        XCTAssertEqual(ancient.environments.first?.startMs, Harness.now - 179 * Self.day, "Apple keeps 180 days")
    }

    func testRunsNeverOverlap() async throws {
        let gate = Latch()
        let s = try setup(gate: gate)
        let first = Task { try await s.reconciler.reconcile() }
        try await eventually("the first run asked for a page") { !s.history.requests.isEmpty }
        XCTAssertEqual(s.history.requests.count, 1, "the first run is inside the source, held by the gate")
        do {
            _ = try await s.reconciler.reconcile()
            XCTFail("a second run started while the first was in flight")
        } catch {
            XCTAssertEqual(error, .alreadyRunning)
        }
        gate.open()
        let report = try await first.value
        XCTAssertTrue(report.succeeded)
        _ = try await s.reconciler.reconcile()  // and once it ended, the next one runs
    }
}

/// The reports a reconciler handed its observer.
private final class ReportLog: Sendable {
    private let reports = Mutex<[ReconciliationReport]>([])
    func append(_ report: ReconciliationReport) { reports.withLock { $0.append(report) } }
    var count: Int { reports.withLock { $0.count } }
}
