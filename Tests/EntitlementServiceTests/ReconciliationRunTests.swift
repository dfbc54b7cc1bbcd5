import EntitlementMemoryStore
@testable import EntitlementService
import ServiceRuntime
import Testing
import TestSupport

/// The reconciliation run belongs to the ingestor it feeds: however many reconcilers share one
/// ingestor, one run at a time.
struct ReconciliationRunTests {
    @Test func twoReconcilersOverOneIngestorNeverOverlap() async throws {
        let store = InMemoryEntitlementStore(clock: Harness.clock)
        let harness = try IngestorHarness(repository: store)
        let gate = Latch()
        let held = ScriptedNotificationHistory(gate: gate)
        let other = ScriptedNotificationHistory()
        func reconciler(_ source: ScriptedNotificationHistory) -> NotificationReconciler {
            NotificationReconciler(source: source, ingestor: harness.ingestor, progress: store,
                                   logger: Logger(minimumLevel: .error, sink: { _ in }), now: Harness.clock)
        }
        let first = Task { try await reconciler(held).reconcile() }
        try await eventually("the first run is inside its source, held by the gate") { !held.requests.isEmpty }
        await #expect(throws: ReconciliationError.alreadyRunning) { try await reconciler(other).reconcile() }
        #expect(other.requests.isEmpty, "the refused run asked Apple nothing")
        gate.open()
        #expect(try await first.value.succeeded)
        let next = try await reconciler(other).reconcile()
        #expect(next.succeeded, "once the first ended, another reconciler's run goes ahead")
    }
}
