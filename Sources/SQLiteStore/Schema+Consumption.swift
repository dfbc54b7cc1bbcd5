import SQLite
import StorageCore

extension Schema {
    /// Apple's refund questions (CONSUMPTION_REQUEST) and the answers owed, one row per
    /// transaction: the request, the app's data and the answer's progress, whichever came
    /// first (`ConsumptionAnswers`). `state` stays NULL while an answer is owed; the partial
    /// index holds only those rows, so the answerer's look costs nothing once they are done.
    package static let consumptionMigration = Migration(
        "consumption_answers", sql: current.table("consumption_answers"))
}
