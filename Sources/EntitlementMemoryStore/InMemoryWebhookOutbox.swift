import EntitlementPorts
import Synchronization

/// The ``WebhookOutbox`` in memory: the reference implementation the contract suite checks the
/// SQLite one against. One lock; nothing durable.
public final class InMemoryWebhookOutbox: WebhookOutbox {
    private struct Endpoint {
        var status: WebhookEndpointStatus
    }

    private struct State {
        var endpoints: [String: Endpoint] = [:]
        var rows: [Int64: WebhookDelivery] = [:]
        var deadLetters: [WebhookDelivery] = []
        var nextRowID: Int64 = 1
    }

    private let state = Mutex(State())

    public init() {}

    public func registerWebhookEndpoints(_ urls: [String], latestSequence: Int64, nowMs: Int64) async throws
        -> [String: Int64] {
        state.withLock { state in
            for key in state.endpoints.keys { state.endpoints[key]?.status.active = false }
            var cursors: [String: Int64] = [:]
            for url in urls {
                if state.endpoints[url] == nil {
                    state.endpoints[url] = Endpoint(
                        status: WebhookEndpointStatus(endpoint: url, active: true, cursor: latestSequence))
                }
                state.endpoints[url]?.status.active = true
                cursors[url] = state.endpoints[url]?.status.cursor
            }
            return cursors
        }
    }

    public func enqueueWebhooks(_ messages: [WebhookMessage], through: Int64, replay: Bool, nowMs: Int64)
        async throws -> Int {
        state.withLock { state in
            var added = 0
            for url in state.endpoints.keys.sorted() where state.endpoints[url]!.status.active {
                let cursor = state.endpoints[url]!.status.cursor
                for message in messages where replay ? message.sequence <= cursor : message.sequence > cursor {
                    let id = state.nextRowID
                    state.nextRowID += 1
                    state.rows[id] = WebhookDelivery(
                        id: id, endpoint: url, message: message, enqueuedAtMs: nowMs, attempts: 0,
                        firstAttemptAtMs: 0, nextAttemptAtMs: nowMs)
                    added += 1
                }
                if !replay { state.endpoints[url]!.status.cursor = max(cursor, through) }
            }
            return added
        }
    }

    public func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws -> [WebhookDelivery] {
        state.withLock { state in
            guard state.endpoints[endpoint]?.status.active == true else { return [] }
            var heads: [String: WebhookDelivery] = [:]
            for row in state.rows.values where row.endpoint == endpoint {
                let key = row.message.userID
                if let head = heads[key], head.id < row.id { continue }
                heads[key] = row
            }
            let due = heads.values.filter { $0.nextAttemptAtMs <= nowMs }
                .sorted { ($0.nextAttemptAtMs, $0.id) < ($1.nextAttemptAtMs, $1.id) }
            return Array(due.prefix(max(0, limit)))
        }
    }

    public func recordWebhookOutcomes(_ outcomes: [WebhookAttemptOutcome]) async throws {
        state.withLock { state in
            for outcome in outcomes {
                guard var row = state.rows[outcome.deliveryID] else { continue }
                var status = state.endpoints[row.endpoint]!.status
                switch outcome.result {
                case .delivered:
                    state.rows[row.id] = nil
                    status.delivered += 1
                case let .retry(next, error):
                    row.attempts += 1
                    if row.firstAttemptAtMs == 0 { row.firstAttemptAtMs = outcome.attemptedAtMs }
                    row.nextAttemptAtMs = next
                    state.rows[row.id] = row
                    status.failedAttempts += 1
                    (status.lastError, status.lastErrorAtMs) = (error, outcome.attemptedAtMs)
                case let .deadLettered(error):
                    row.attempts += 1
                    state.rows[row.id] = nil
                    state.deadLetters.append(row)
                    status.failedAttempts += 1
                    status.deadLetters += 1
                    (status.lastError, status.lastErrorAtMs) = (error, outcome.attemptedAtMs)
                }
                state.endpoints[row.endpoint]!.status = status
            }
        }
    }

    public func webhookStatus() throws -> [WebhookEndpointStatus] {
        state.withLock { state in
            state.endpoints.keys.sorted().map { url in
                var status = state.endpoints[url]!.status
                let pending = state.rows.values.filter { $0.endpoint == url }
                status.pending = pending.count
                status.oldestPendingEnqueuedAtMs = pending.map(\.enqueuedAtMs).min() ?? 0
                return status
            }
        }
    }
}
