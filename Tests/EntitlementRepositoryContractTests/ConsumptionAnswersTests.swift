import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// The queue of answers owed to Apple's refund questions, on every backend: what is due, when,
/// and that an answer once sent, rejected or expired is never due again.
struct ConsumptionAnswersTests {
    private let asked: Int64 = 1_700_000_000_000
    private let hour: Int64 = 3_600_000

    private func request(_ id: String, at ms: Int64) -> ConsumptionRequest {
        ConsumptionRequest(transactionID: id, environment: .sandbox, requestedAtMs: ms, reason: "LEGAL")
    }

    private func data(_ id: String, consented: Bool = true, percentage: Int = 10) -> ConsumptionData {
        ConsumptionData(userID: "alice", transactionID: id, customerConsented: consented,
                        consumptionPercentage: percentage, deliveryStatus: "DELIVERED", sampleContentProvided: true,
                        recordedAtMs: asked)
    }

    private func answers(_ backend: Backend, _ body: (any ConsumptionAnswers) async throws -> Void) async throws {
        try await backend.withRepository { store in
            let answers = try #require(store as? any ConsumptionAnswers)
            try await body(answers)
        }
    }

    @Test(arguments: Backend.allCases)
    func aRequestIsDueOnlyWithConsentedDataUntilItsWindowEndsThenToExpire(backend: Backend) async throws {
        try await answers(backend) { store in
            try await store.recordConsumptionData(data("1"))
            #expect(try await store.dueConsumptionAnswers(nowMs: asked, limit: 10).isEmpty, "no request yet")
            try await store.recordConsumptionRequest(request("1", at: asked))
            try await store.recordConsumptionRequest(request("2", at: asked + 1))
            try await store.recordConsumptionData(data("2", consented: false))
            try await store.recordConsumptionRequest(request("3", at: asked + 2))
            let due = try await store.dueConsumptionAnswers(nowMs: asked + hour, limit: 10)
            #expect(due == [ConsumptionAnswerTask(request: request("1", at: asked), data: data("1"), attempts: 0)])
            let late = try await store.dueConsumptionAnswers(nowMs: asked + 13 * hour, limit: 10)
            #expect(late.map(\.request.transactionID) == ["1", "2", "3"], "past the window all are due, to expire")
            #expect(late.map { $0.data?.customerConsented } == [true, false, nil])
        }
    }

    @Test(arguments: Backend.allCases)
    func outcomesRetryLaterOrTakeTheRequestOffTheQueueForGood(backend: Backend) async throws {
        try await answers(backend) { store in
            for id in ["1", "2", "3"] {
                try await store.recordConsumptionRequest(request(id, at: asked))
                try await store.recordConsumptionData(data(id))
            }
            try await store.recordConsumptionOutcome(.retry(nextAttemptAtMs: asked + hour, reason: "503"),
                                                     transactionID: "1", atMs: asked)
            try await store.recordConsumptionOutcome(.sent, transactionID: "2", atMs: asked)
            try await store.recordConsumptionOutcome(.rejected(reason: "400"), transactionID: "3", atMs: asked)
            #expect(try await store.dueConsumptionAnswers(nowMs: asked + 1, limit: 10).isEmpty)
            let retried = try await store.dueConsumptionAnswers(nowMs: asked + hour, limit: 10)
            #expect(retried.map(\.request.transactionID) == ["1"] && retried.first?.attempts == 1)
            // Apple redelivering the request, or new data, brings nothing back.
            try await store.recordConsumptionRequest(request("2", at: asked))
            try await store.recordConsumptionData(data("3", percentage: 99))
            try await store.recordConsumptionOutcome(.sent, transactionID: "1", atMs: asked + hour)
            #expect(try await store.dueConsumptionAnswers(nowMs: asked + 13 * hour, limit: 10).isEmpty)
            // The customer asking again after the window reopens the question.
            try await store.recordConsumptionRequest(request("2", at: asked + 24 * hour))
            let again = try await store.dueConsumptionAnswers(nowMs: asked + 25 * hour, limit: 10)
            #expect(again.map(\.request.requestedAtMs) == [asked + 24 * hour] && again.first?.attempts == 0)
        }
    }
}
