import EntitlementPorts
import Entitlements

/// One transaction's consumption question and answer, as the SQL stores' row keeps them.
struct ConsumptionRow: Sendable {
    var request: ConsumptionRequest?
    var data: ConsumptionData?
    var attempts = 0
    var nextAttemptMs: Int64 = 0
    var state: String?
}

extension InMemoryEntitlementStore: ConsumptionAnswers {
    public func recordConsumptionRequest(_ request: ConsumptionRequest) async throws {
        consumption.withLock { rows in
            var row = rows[request.transactionID] ?? ConsumptionRow()
            if let stored = row.request {
                guard row.state != nil,
                      request.requestedAtMs >= stored.requestedAtMs + ConsumptionRules.answerWindowMs else { return }
            }
            row.request = request
            row.attempts = 0
            row.nextAttemptMs = 0
            row.state = nil
            rows[request.transactionID] = row
        }
    }

    public func recordConsumptionData(_ data: ConsumptionData) async throws {
        consumption.withLock { $0[data.transactionID, default: ConsumptionRow()].data = data }
    }

    public func dueConsumptionAnswers(nowMs: Int64, limit: Int) async throws -> [ConsumptionAnswerTask] {
        consumption.withLock { rows in
            rows.values.compactMap { row -> ConsumptionAnswerTask? in
                guard let request = row.request, row.state == nil, row.nextAttemptMs <= nowMs,
                      row.data?.customerConsented == true
                        || request.requestedAtMs <= nowMs - ConsumptionRules.answerWindowMs else { return nil }
                return ConsumptionAnswerTask(request: request, data: row.data, attempts: row.attempts)
            }
            .sorted { ($0.request.requestedAtMs, $0.request.transactionID)
                < ($1.request.requestedAtMs, $1.request.transactionID) }
            .prefix(limit).map { $0 }
        }
    }

    public func recordConsumptionOutcome(
        _ outcome: ConsumptionOutcome, transactionID: String, atMs: Int64
    ) async throws {
        consumption.withLock { rows in
            guard var row = rows[transactionID], row.state == nil else { return }
            switch outcome {
            case .retry(let next, _):
                row.attempts += 1
                row.nextAttemptMs = next
            case .expired:
                row.state = outcome.finalState
            case .sent, .rejected:
                row.attempts += 1
                row.state = outcome.finalState
            }
            rows[transactionID] = row
        }
    }
}
