import ServiceRuntime
import StorageCore

/// The change log's metric series.
///
/// - `entitlementd_entitlement_changes_total{cause}`: changes appended, by what caused them
///   (`receipt`, `notification_v1`, `notification_v2`, or `time` for expiries and grace ends);
/// - `entitlementd_change_due_lag_seconds`: how late after its instant each due pass ran (the
///   timer's promptness; a startup catch-up after downtime shows as one large observation);
/// - `entitlementd_entitlement_changes_pruned_total`: changes deleted past --change-retention.
struct ChangeLogMetrics: Sendable {
    let registry: MetricsRegistry
    let dueLag: Histogram
    let pruned: Counter

    init(registry: MetricsRegistry) {
        self.registry = registry
        dueLag = registry.histogram(
            "entitlementd_change_due_lag_seconds",
            help: "seconds from a time-driven change's instant to the due pass that wrote it",
            buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60, 3_600])
        pruned = registry.counter(
            "entitlementd_entitlement_changes_pruned_total", help: "entitlement changes pruned past --change-retention")
    }

    func appended(cause: String, count: Int) {
        registry.increment(
            "entitlementd_entitlement_changes_total", help: "entitlement changes appended to the change log, by cause",
            labels: [("cause", cause)], by: count)
    }

    /// The store's hooks, bound to these series.
    var reporting: ChangeLogReporting {
        ChangeLogReporting(
            appended: { cause, count in appended(cause: cause, count: count) },
            dueLag: { seconds in dueLag.observe(seconds) },
            pruned: { count in pruned.increment(by: count) })
    }
}
