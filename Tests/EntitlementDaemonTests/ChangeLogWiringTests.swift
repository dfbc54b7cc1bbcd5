@testable import EntitlementDaemon
import ServiceRuntime
import Testing

/// --change-retention and the change log's metrics.
struct ChangeLogWiringTests {
    private func retention(_ arguments: [String], environment: [String: String] = [:]) throws -> Int64? {
        try Daemon.changeRetentionMs(DaemonFlags.parser.parse(arguments, environment: environment))
    }

    @Test func retentionDefaultsToThirtyDaysAndTakesDaysOrOff() throws {
        #expect(try retention([]) == 30 * 86_400_000)
        #expect(try retention(["--change-retention", "72h"]) == 72 * 3_600_000)
        #expect(try retention(["--change-retention=7d"]) == 7 * 86_400_000)
        #expect(try retention([], environment: ["ENTITLEMENTD_CHANGE_RETENTION": "2d"]) == 2 * 86_400_000)
        #expect(try retention(["--change-retention", "off"]) == nil)
    }

    @Test(arguments: ["30s", "0", "soon", "-1d"])
    func retentionRefusesWhatWouldLoseChangesAtOnce(_ value: String) {
        #expect(throws: FlagError.self) { try retention(["--change-retention", value]) }
    }

    @Test func changesAreCountedByCauseAndTheTimerLagObserved() {
        let metrics = ChangeLogMetrics(registry: MetricsRegistry())
        metrics.reporting.appended?("notification_v2", 2)
        metrics.reporting.appended?("time", 1)
        metrics.reporting.dueLag?(0.02)
        metrics.reporting.pruned?(1_000)
        let text = metrics.registry.render()
        #expect(text.contains(#"entitlementd_entitlement_changes_total{cause="notification_v2"} 2"#), "\(text)")
        #expect(text.contains(#"entitlementd_entitlement_changes_total{cause="time"} 1"#), "\(text)")
        #expect(text.contains("entitlementd_change_due_lag_seconds_count 1"), "\(text)")
        #expect(text.contains("entitlementd_entitlement_changes_pruned_total 1000"), "\(text)")
    }
}
