import EntitlementPorts
import Testing

/// The webhook outbox contract: feeding moves the cursor with the rows, one row per user at a
/// time is due, outcomes move rows out (delivered, dead letters) or back (retry), replay adds
/// rows without moving cursors, endpoints dropped from the configuration keep their rows.
struct WebhookOutboxTests {
    static let a = "https://a.example/hooks"
    static let b = "https://b.example/hooks"

    static func message(_ sequence: Int64, _ user: String) -> WebhookMessage {
        WebhookMessage(sequence: sequence, changeID: "log-\(sequence)", userID: user, body: "{\"n\":\(sequence)}")
    }

    @Test(arguments: Backend.allCases)
    func feedingAddsOneRowPerEndpointAndMovesEveryCursorInOneStep(backend: Backend) async throws {
        try await backend.withOutbox { outbox, reopen in
            let cursors = try await outbox.registerWebhookEndpoints([Self.a, Self.b], latestSequence: 10, nowMs: 1)
            #expect(cursors == [Self.a: 10, Self.b: 10])
            // 9 and 10 are at or before the cursors: not enqueued again.
            let added = try await outbox.enqueueWebhooks(
                [Self.message(9, "u"), Self.message(10, "u"), Self.message(11, "u"), Self.message(12, "v")],
                through: 12, replay: false, nowMs: 100)
            #expect(added == 4)
            let reopened = try await reopen()
            let status = try reopened.webhookStatus()
            #expect(status.map(\.endpoint) == [Self.a, Self.b])
            #expect(status.map(\.cursor) == [12, 12])
            #expect(status.map(\.pending) == [2, 2])
            #expect(status.map(\.oldestPendingEnqueuedAtMs) == [100, 100])
            // Registering again resumes at the durable cursor, whatever the log's latest is.
            #expect(try await reopened.registerWebhookEndpoints([Self.a], latestSequence: 50, nowMs: 2) == [Self.a: 12])
        }
    }

    @Test(arguments: Backend.allCases)
    func onlyEachUsersOldestRowIsDueAndOnlyOnceItsTimeHasCome(backend: Backend) async throws {
        try await backend.withOutbox { outbox, _ in
            _ = try await outbox.registerWebhookEndpoints([Self.a], latestSequence: 0, nowMs: 1)
            try await outbox.enqueueWebhooks(
                [Self.message(1, "u"), Self.message(2, "v"), Self.message(3, "u")], through: 3, replay: false,
                nowMs: 100)
            var due = try outbox.dueWebhookDeliveries(endpoint: Self.a, nowMs: 100, limit: 10)
            #expect(due.map(\.message.sequence) == [1, 2])
            #expect(due[0].message == Self.message(1, "u"))
            #expect(due[0].attempts == 0 && due[0].firstAttemptAtMs == 0)
            #expect(try outbox.dueWebhookDeliveries(endpoint: Self.a, nowMs: 100, limit: 1).count == 1)
            #expect(try outbox.dueWebhookDeliveries(endpoint: Self.b, nowMs: 100, limit: 10).isEmpty)

            // u's first fails: u waits (its later row is not due either), v proceeds.
            try await outbox.recordWebhookOutcomes([
                WebhookAttemptOutcome(deliveryID: due[0].id, attemptedAtMs: 150,
                                      result: .retry(nextAttemptAtMs: 1_000, error: "HTTP 500")),
                WebhookAttemptOutcome(deliveryID: due[1].id, attemptedAtMs: 150, result: .delivered),
            ])
            #expect(try outbox.dueWebhookDeliveries(endpoint: Self.a, nowMs: 999, limit: 10).isEmpty)
            due = try outbox.dueWebhookDeliveries(endpoint: Self.a, nowMs: 1_000, limit: 10)
            #expect(due.map(\.message.sequence) == [1])
            #expect(due[0].attempts == 1 && due[0].firstAttemptAtMs == 150)

            try await outbox.recordWebhookOutcomes([
                WebhookAttemptOutcome(deliveryID: due[0].id, attemptedAtMs: 1_000,
                                      result: .deadLettered(error: "timed out")),
            ])
            #expect(try outbox.dueWebhookDeliveries(endpoint: Self.a, nowMs: 1_000, limit: 10).map(\.message.sequence)
                    == [3])
            let status = try #require(try outbox.webhookStatus().first)
            #expect(status.pending == 1)
            #expect(status.delivered == 1)
            #expect(status.failedAttempts == 2)
            #expect(status.deadLetters == 1)
            #expect(status.lastError == "timed out")
            #expect(status.lastErrorAtMs == 1_000)
        }
    }

    @Test(arguments: Backend.allCases)
    func anOutcomeRecordedTwiceCountsOnce(backend: Backend) async throws {
        try await backend.withOutbox { outbox, _ in
            _ = try await outbox.registerWebhookEndpoints([Self.a], latestSequence: 0, nowMs: 1)
            try await outbox.enqueueWebhooks([Self.message(1, "u")], through: 1, replay: false, nowMs: 1)
            let id = try outbox.dueWebhookDeliveries(endpoint: Self.a, nowMs: 1, limit: 1)[0].id
            let delivered = WebhookAttemptOutcome(deliveryID: id, attemptedAtMs: 2, result: .delivered)
            try await outbox.recordWebhookOutcomes([delivered])
            try await outbox.recordWebhookOutcomes([delivered])
            #expect(try outbox.webhookStatus()[0].delivered == 1)
        }
    }

    @Test(arguments: Backend.allCases)
    func replayAddsRowsUpToEachCursorWithoutMovingIt(backend: Backend) async throws {
        try await backend.withOutbox { outbox, _ in
            _ = try await outbox.registerWebhookEndpoints([Self.a], latestSequence: 2, nowMs: 1)
            let added = try await outbox.enqueueWebhooks(
                [Self.message(1, "u"), Self.message(2, "u"), Self.message(3, "u")], through: 3, replay: true, nowMs: 5)
            #expect(added == 2)
            let status = try outbox.webhookStatus()[0]
            #expect(status.cursor == 2)
            #expect(status.pending == 2)
        }
    }

    @Test(arguments: Backend.allCases)
    func anEndpointLeftOutOfTheConfigurationKeepsItsRowsButGetsNothingNew(backend: Backend) async throws {
        try await backend.withOutbox { outbox, _ in
            _ = try await outbox.registerWebhookEndpoints([Self.a, Self.b], latestSequence: 0, nowMs: 1)
            try await outbox.enqueueWebhooks([Self.message(1, "u")], through: 1, replay: false, nowMs: 1)
            #expect(try await outbox.registerWebhookEndpoints([Self.a], latestSequence: 1, nowMs: 2) == [Self.a: 1])
            try await outbox.enqueueWebhooks([Self.message(2, "u")], through: 2, replay: false, nowMs: 3)
            let status = try outbox.webhookStatus()
            #expect(status.map(\.active) == [true, false])
            #expect(status.map(\.pending) == [2, 1])
            #expect(status.map(\.cursor) == [2, 1])
            #expect(try outbox.dueWebhookDeliveries(endpoint: Self.b, nowMs: 10, limit: 10).isEmpty)
        }
    }
}
