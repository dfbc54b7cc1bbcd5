import SQLite
import StorageCore

extension Schema {
    /// Apple's refund questions (CONSUMPTION_REQUEST) and the answers owed, one row per
    /// transaction: the request, the app's data and the answer's progress, whichever came
    /// first (`ConsumptionAnswers`). `state` stays NULL while an answer is owed; the partial
    /// index holds only those rows, so the answerer's look costs nothing once they are done.
    package static let consumptionMigration = Migration("consumption_answers", sql: """
        CREATE TABLE consumption_answers (
            transaction_id TEXT PRIMARY KEY,
            requested_at_ms INTEGER,
            environment INTEGER,
            request_reason TEXT,
            user_id TEXT,
            customer_consented INTEGER,
            consumption_percentage INTEGER,
            delivery_status TEXT,
            sample_content_provided INTEGER,
            data_recorded_at_ms INTEGER,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_ms INTEGER NOT NULL DEFAULT 0,
            state TEXT,
            state_reason TEXT,
            finished_at_ms INTEGER
        ) WITHOUT ROWID;
        CREATE INDEX consumption_answers_owed ON consumption_answers(next_attempt_ms)
            WHERE state IS NULL AND requested_at_ms IS NOT NULL;
        """)
}
