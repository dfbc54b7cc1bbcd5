import EntitlementService
import Entitlements
import ServiceRuntime

/// Reconciliation's metric series: notifications found in Apple's history by outcome, runs by
/// result, when the last complete run finished and how often runs are meant to start (the
/// alert in Deploy/prometheus/alerts.yml compares the two).
final class ReconciliationMetrics: Sendable {
    static let outcomes = ["applied", "duplicate", "rejected", "ignored"]

    private let notifications: [String: Counter]
    private let runs: [Bool: Counter]
    private let lastSuccessMs = Locked<Int64>(0)

    /// `interval` is --reconcile-interval, nil when the periodic job is off.
    init(registry: MetricsRegistry, interval: Duration?) {
        var notifications: [String: Counter] = [:]
        for environment in Environment.allCases {
            for outcome in Self.outcomes {
                notifications["\(environment.rawValue)/\(outcome)"] = registry.counter(
                    "entitlementd_reconciled_notifications_total",
                    help: "notifications found in Apple's notification history by reconciliation, by outcome",
                    labels: [("environment", environment.rawValue), ("outcome", outcome)])
            }
        }
        self.notifications = notifications
        runs = [true, false].reduce(into: [:]) { runs, succeeded in
            runs[succeeded] = registry.counter(
                "entitlementd_reconciliation_runs_total",
                help: "reconciliation runs: complete (every environment, watermark advanced) or incomplete",
                labels: [("result", succeeded ? "complete" : "incomplete")])
        }
        registry.registerGauge(
            "entitlementd_reconciliation_last_success_timestamp_seconds",
            help: "when the last complete reconciliation finished (Unix seconds; 0 before the first)"
        ) { [lastSuccessMs] in Double(lastSuccessMs.withLock { $0 }) / 1000 }
        let intervalSeconds = interval?.inSeconds ?? 0
        registry.registerGauge(
            "entitlementd_reconciliation_interval_seconds",
            help: "--reconcile-interval: how often the lease holder reconciles (0: periodic runs are off)"
        ) { intervalSeconds }
    }

    func record(_ report: ReconciliationReport) {
        for run in report.environments {
            let counts = [run.applied, run.duplicate, run.rejected, run.ignored]
            for (outcome, count) in zip(Self.outcomes, counts) where count > 0 {
                notifications["\(run.environment.rawValue)/\(outcome)"]?.increment(by: count)
            }
        }
        runs[report.succeeded]?.increment()
        if report.succeeded { lastSuccessMs.withLock { $0 = max($0, report.finishedAtMs) } }
    }
}
