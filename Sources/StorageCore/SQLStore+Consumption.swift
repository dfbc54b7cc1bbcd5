import EntitlementPorts
import Entitlements
import SQLDatabase
import StorageTables

/// Apple's refund questions and the answers owed (``ConsumptionAnswers``), once for every
/// engine, on the writer's connection between batches: a handful of rows a day, never on the
/// read path.
extension SQLStore: ConsumptionAnswers {
    /// The first request stands against Apple's redeliveries (same signed date); a request
    /// after a finished one's window (the customer asked again) opens the row anew.
    public func recordConsumptionRequest(_ request: ConsumptionRequest) throws {
        try onWriter("recording a consumption request") { db in
            let upsert = try db.prepare("""
                INSERT INTO consumption_answers (transaction_id, requested_at_ms, environment, request_reason)
                VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (transaction_id) DO UPDATE SET requested_at_ms = excluded.requested_at_ms,
                    environment = excluded.environment, request_reason = excluded.request_reason, state = NULL,
                    state_reason = NULL, attempts = 0, next_attempt_ms = 0, finished_at_ms = NULL
                WHERE consumption_answers.requested_at_ms IS NULL
                    OR (consumption_answers.state IS NOT NULL
                        AND excluded.requested_at_ms >= consumption_answers.requested_at_ms + ?5)
                """)
            upsert.bind(request.transactionID, at: 1)
            upsert.bind(request.requestedAtMs, at: 2)
            upsert.bind(StorageCodes.code(request.environment), at: 3)
            upsert.bind(request.reason, at: 4)
            upsert.bind(ConsumptionRules.answerWindowMs, at: 5)
            try upsert.execute()
        }
    }

    public func recordConsumptionData(_ data: ConsumptionData) throws {
        try onWriter("recording consumption data") { db in
            let upsert = try db.prepare("""
                INSERT INTO consumption_answers (transaction_id, user_id, customer_consented, consumption_percentage,
                    delivery_status, sample_content_provided, data_recorded_at_ms)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                ON CONFLICT (transaction_id) DO UPDATE SET user_id = excluded.user_id,
                    customer_consented = excluded.customer_consented,
                    consumption_percentage = excluded.consumption_percentage,
                    delivery_status = excluded.delivery_status,
                    sample_content_provided = excluded.sample_content_provided,
                    data_recorded_at_ms = excluded.data_recorded_at_ms
                """)
            upsert.bind(data.transactionID, at: 1)
            upsert.bind(data.userID, at: 2)
            upsert.bind(data.customerConsented, at: 3)
            upsert.bind(Int64(data.consumptionPercentage), at: 4)
            upsert.bind(data.deliveryStatus, at: 5)
            upsert.bind(data.sampleContentProvided, at: 6)
            upsert.bind(data.recordedAtMs, at: 7)
            try upsert.execute()
        }
    }

    /// Owed answers that can be sent (consented data) or must be given up (window over).
    public func dueConsumptionAnswers(nowMs: Int64, limit: Int) throws -> [ConsumptionAnswerTask] {
        try onWriter("reading the consumption answers owed") { db in
            let select = try db.prepare("""
                SELECT transaction_id, requested_at_ms, environment, COALESCE(request_reason, ''), user_id,
                    customer_consented, consumption_percentage, delivery_status, sample_content_provided,
                    data_recorded_at_ms, attempts
                FROM consumption_answers
                WHERE state IS NULL AND requested_at_ms IS NOT NULL AND next_attempt_ms <= ?1
                    AND (customer_consented = 1 OR requested_at_ms <= ?2)
                ORDER BY requested_at_ms, transaction_id LIMIT ?3
                """)
            select.bind(nowMs, at: 1)
            select.bind(nowMs - ConsumptionRules.answerWindowMs, at: 2)
            select.bind(Int64(limit), at: 3)
            defer { select.reset() }
            var tasks: [ConsumptionAnswerTask] = []
            while try select.step() {
                let transactionID = select.string(at: 0)
                let request = ConsumptionRequest(
                    transactionID: transactionID, environment: StorageCodes.environment(select.int64(at: 2)),
                    requestedAtMs: select.int64(at: 1), reason: select.string(at: 3))
                let data = select.optionalString(at: 4).map { userID in
                    ConsumptionData(
                        userID: userID, transactionID: transactionID, customerConsented: select.bool(at: 5),
                        consumptionPercentage: Int(select.int64(at: 6)), deliveryStatus: select.string(at: 7),
                        sampleContentProvided: select.bool(at: 8), recordedAtMs: select.int64(at: 9))
                }
                tasks.append(ConsumptionAnswerTask(request: request, data: data, attempts: Int(select.int64(at: 10))))
            }
            return tasks
        }
    }

    /// Only an owed row changes: an outcome recorded twice (two answerers racing) keeps the first.
    public func recordConsumptionOutcome(
        _ outcome: ConsumptionOutcome, transactionID: String, atMs: Int64
    ) throws {
        try onWriter("recording a consumption answer") { db in
            let update: DB.Statement
            switch outcome {
            case .retry(let next, let reason):
                update = try db.prepare("""
                    UPDATE consumption_answers SET attempts = attempts + 1, next_attempt_ms = ?1, state_reason = ?2
                    WHERE transaction_id = ?3 AND state IS NULL
                    """)
                update.bind(next, at: 1)
                update.bind(reason, at: 2)
            case .sent, .rejected, .expired:
                let reason: String
                if case .rejected(let why) = outcome { reason = why } else { reason = "" }
                update = try db.prepare("""
                    UPDATE consumption_answers SET attempts = attempts + ?1, state = ?2, state_reason = ?3,
                        finished_at_ms = ?4
                    WHERE transaction_id = ?5 AND state IS NULL
                    """)
                update.bind(Int64(outcome == .expired ? 0 : 1), at: 1)
                update.bind(outcome.finalState ?? "", at: 2)
                update.bind(reason, at: 3)
                update.bind(atMs, at: 4)
            }
            update.bind(transactionID, at: outcome.finalState == nil ? 3 : 5)
            try update.execute()
        }
    }
}
