import EntitlementPorts
import Foundation

/// The delivery loop: outbox -> POSTs -> outcomes, on every wake-up.
extension WebhookDispatcher {
    func deliveryLoop() async {
        let endpoints = configuration.endpoints
        // Rows being attempted, by endpoint; a row stays here until its outcome is durable, so
        // it is never attempted twice at once.
        var inFlight: [String: Set<Int64>] = [:]
        var failing: Set<String> = []
        await withDiscardingTaskGroup { group in
            for await _ in deliveryWakes {
                guard await recordFinished(&inFlight, failing: &failing) else { continue }
                for url in endpoints {
                    let endpoint = url.absoluteString
                    let busy = inFlight[endpoint, default: []]
                    let free = configuration.maxConcurrentPerEndpoint - busy.count
                    guard free > 0 else { continue }
                    let due: [WebhookDelivery]
                    do {
                        due = try outbox.dueWebhookDeliveries(endpoint: endpoint, nowMs: clock(),
                                                              limit: free + busy.count)
                    } catch {
                        logger.error("webhooks: cannot read the outbox", [("error", "\(error)")])
                        continue
                    }
                    for delivery in due.lazy.filter({ !busy.contains($0.id) }).prefix(free) {
                        inFlight[endpoint, default: []].insert(delivery.id)
                        group.addTask {
                            guard let outcome = await self.attempt(delivery, to: url) else { return }
                            self.finished.withLock { $0.append(outcome) }
                            self.deliveryWake.yield()
                        }
                    }
                }
            }
            group.cancelAll()
        }
        // Attempts that finished before the stop are recorded; abandoned ones are retried later.
        _ = await recordFinished(&inFlight, failing: &failing)
    }

    /// Records the finished attempts in one store write; false (keeping them for the next
    /// wake-up) when the store refused.
    private func recordFinished(_ inFlight: inout [String: Set<Int64>], failing: inout Set<String>) async -> Bool {
        let outcomes = finished.withLock { finished in
            defer { finished.removeAll() }
            return finished
        }
        guard !outcomes.isEmpty else { return true }
        do {
            try await outbox.recordWebhookOutcomes(outcomes)
        } catch {
            finished.withLock { $0.insert(contentsOf: outcomes, at: 0) }
            logger.error("webhooks: cannot record delivery outcomes; retrying", [("error", "\(error)")])
            return false
        }
        for outcome in outcomes {
            for endpoint in inFlight.keys where inFlight[endpoint]!.remove(outcome.deliveryID) != nil {
                noteHealth(endpoint, outcome.result, failing: &failing)
            }
        }
        return true
    }

    /// Logs an endpoint starting to fail and recovering (not every failed attempt), and every
    /// dead letter.
    private func noteHealth(_ endpoint: String, _ result: WebhookAttemptOutcome.Result, failing: inout Set<String>) {
        let name = WebhookEndpointName.redacted(endpoint)
        switch result {
        case .delivered:
            if failing.remove(endpoint) != nil {
                logger.info("webhooks: endpoint delivers again", [("endpoint", name)])
            }
        case let .retry(_, error):
            if failing.insert(endpoint).inserted {
                logger.warning("webhooks: endpoint failing; retrying with backoff",
                               [("endpoint", name), ("error", error)])
            }
        case let .deadLettered(error):
            failing.insert(endpoint)
            logger.error("webhooks: delivery dead-lettered after the retry window",
                         [("endpoint", name), ("error", error)])
        }
    }

    /// One signed POST; nil when cancelled by ``stop()`` (not an outcome: it is tried again).
    func attempt(_ delivery: WebhookDelivery, to url: URL) async -> WebhookAttemptOutcome? {
        let body = delivery.message.body
        let headers = [
            ("Content-Type", "application/json"),
            ("Webhook-Id", delivery.message.changeID),
            ("Webhook-Signature",
             WebhookSignature.header(secret: configuration.secret, unixSeconds: clock() / 1_000, body: body)),
            ("User-Agent", "entitlementd-webhooks/1"),
        ]
        let result = await transport.post(url, headers: headers, body: Array(body.utf8),
                                          timeout: configuration.timeout)
        if Task.isCancelled { return nil }
        let now = clock()
        let outcome: WebhookAttemptOutcome.Result
        if result.isSuccess {
            outcome = .delivered
        } else if let next = configuration.schedule.nextAttemptAtMs(
            failedAtMs: now, firstAttemptAtMs: delivery.firstAttemptAtMs, failures: delivery.attempts + 1,
            random: random()) {
            outcome = .retry(nextAttemptAtMs: next, error: result.failureDescription)
        } else {
            outcome = .deadLettered(error: result.failureDescription)
        }
        observe(.attempt(endpoint: delivery.endpoint, outcome: outcome))
        return WebhookAttemptOutcome(deliveryID: delivery.id, attemptedAtMs: now, result: outcome)
    }
}

/// An endpoint as logs and metric labels show it: without credentials or a query string,
/// which may carry a token.
public enum WebhookEndpointName {
    public static func redacted(_ endpoint: String) -> String {
        guard var components = URLComponents(string: endpoint) else { return "(unparseable URL)" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "(unparseable URL)"
    }
}
