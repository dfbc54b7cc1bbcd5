import EntitlementPorts
import ServiceRuntime
import Webhooks

/// Webhook delivery metrics: attempts by outcome (counted as they happen), and the outbox's
/// backlog read from the store at scrape time (so they are right after a restart too).
struct WebhookMetrics: Sendable {
    let registry: MetricsRegistry

    init(registry: MetricsRegistry, outbox: any WebhookOutbox) {
        self.registry = registry
        for outcome in ["delivered", "failed", "dead_lettered"] {
            _ = registry.counter("entitlementd_webhook_deliveries_total", help: Self.deliveriesHelp,
                                 labels: [("outcome", outcome)])
        }
        let statuses = { @Sendable in (try? outbox.webhookStatus()) ?? [] }
        registry.registerGauge(
            "entitlementd_webhook_oldest_undelivered_age_seconds",
            help: "age of the oldest webhook not yet delivered (0 when none is pending)"
        ) {
            let oldest = statuses().map(\.oldestPendingEnqueuedAtMs).filter { $0 > 0 }.min()
            return oldest.map { Double(max(0, WallClock.unixMilliseconds() - $0)) / 1_000 } ?? 0
        }
        registry.registerGauge("entitlementd_webhook_pending", help: "webhook deliveries waiting in the outbox") {
            Double(statuses().reduce(0) { $0 + $1.pending })
        }
        registry.registerGauge(
            "entitlementd_webhook_dead_letters", help: "webhook deliveries given up after the retry window, ever"
        ) {
            Double(statuses().reduce(0) { $0 + $1.deadLetters })
        }
    }

    private static let deliveriesHelp =
        "webhook delivery attempts by outcome (failed: retried later; dead_lettered: given up)"

    /// The dispatcher's observer.
    var observe: @Sendable (WebhookDispatcher.Event) -> Void {
        { [registry] event in
            switch event {
            case let .attempt(_, outcome):
                let label: String
                switch outcome {
                case .delivered: label = "delivered"
                case .retry: label = "failed"
                case .deadLettered: label = "dead_lettered"
                }
                registry.increment("entitlementd_webhook_deliveries_total", help: Self.deliveriesHelp,
                                   labels: [("outcome", label)])
            }
        }
    }
}
