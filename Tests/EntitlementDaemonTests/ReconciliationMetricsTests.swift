@testable import EntitlementDaemon
import EntitlementService
import Entitlements
import ServiceRuntime
import Testing

/// Reconciliation's metrics and admin JSON: what a report turns into at the edge.
struct ReconciliationMetricsTests {
    private func report(sandboxError: String? = nil) -> ReconciliationReport {
        var production = ReconciliationReport.EnvironmentRun(environment: .production, startMs: 1_000, endMs: 9_000)
        (production.pages, production.found, production.applied, production.duplicate) = (2, 3, 1, 2)
        production.watermarkAdvanced = true
        var sandbox = ReconciliationReport.EnvironmentRun(environment: .sandbox, startMs: 1_000, endMs: 9_000)
        (sandbox.found, sandbox.rejected) = (1, 1)
        sandbox.error = sandboxError
        sandbox.watermarkAdvanced = sandboxError == nil
        return ReconciliationReport(startedAtMs: 9_000, finishedAtMs: 9_500, environments: [production, sandbox])
    }

    @Test func outcomesAreCountedPerEnvironmentAndACompleteRunSetsTheLastSuccess() {
        let registry = MetricsRegistry()
        let metrics = ReconciliationMetrics(registry: registry, interval: .seconds(3600))
        let before = registry.render()
        let zero = #"entitlementd_reconciled_notifications_total{environment="sandbox",outcome="applied"} 0"#
        #expect(before.contains(zero), "\(before)")
        #expect(before.contains("entitlementd_reconciliation_last_success_timestamp_seconds 0"), "\(before)")
        #expect(before.contains("entitlementd_reconciliation_interval_seconds 3600"), "\(before)")
        metrics.record(report())
        metrics.record(report(sandboxError: "Apple answered 503"))
        let text = registry.render()
        for line in [
            #"entitlementd_reconciled_notifications_total{environment="production",outcome="applied"} 2"#,
            #"entitlementd_reconciled_notifications_total{environment="production",outcome="duplicate"} 4"#,
            #"entitlementd_reconciled_notifications_total{environment="sandbox",outcome="rejected"} 2"#,
            #"entitlementd_reconciliation_runs_total{result="complete"} 1"#,
            #"entitlementd_reconciliation_runs_total{result="incomplete"} 1"#,
            "entitlementd_reconciliation_last_success_timestamp_seconds 9.5",
        ] {
            #expect(text.contains(line), "\(line)\n\(text)")
        }
    }

    @Test func theIntervalIsZeroWhenPeriodicRunsAreOff() {
        let registry = MetricsRegistry()
        _ = ReconciliationMetrics(registry: registry, interval: nil)
        #expect(registry.render().contains("entitlementd_reconciliation_interval_seconds 0\n"))
    }

    @Test func theAdminJSONCarriesEachEnvironmentAndItsError() {
        let object = report(sandboxError: "Apple answered 503").jsonObject
        #expect(object["succeeded"] as? Bool == false)
        #expect(object["applied"] as? Int == 1)
        let environments = object["environments"] as? [[String: Any]] ?? []
        #expect(environments.map { $0["environment"] as? String } == ["production", "sandbox"])
        #expect(environments[0]["error"] == nil)
        #expect(environments[0]["watermark_advanced"] as? Bool == true)
        #expect(environments[1]["error"] as? String == "Apple answered 503")
        #expect(environments[1]["watermark_advanced"] as? Bool == false)
    }
}
