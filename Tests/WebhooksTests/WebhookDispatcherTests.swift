import EntitlementMemoryStore
import EntitlementPorts
import Foundation
import ServiceRuntime
import Testing
import TestSupport
import Webhooks

/// The dispatcher on the in-memory outbox, a change log double and a scripted endpoint:
/// at least once, in order per user, retries, dead letters, replay, retention.
/// The cursor the dispatcher is given (the daemon passes WatchEntitlementChanges' encoding).
@Sendable func cursor(_ sequence: Int64) -> String { "c\(sequence)" }

struct WebhookDispatcherTests {
    static let endpoint = URL(string: "http://hooks.example/entitlements")!
    /// Retries in milliseconds; a window long enough that nothing is dead-lettered by accident
    /// on a loaded machine.
    static let fast = RetrySchedule(initialMs: 20, maximumMs: 80, windowMs: 600_000)
    /// The same, giving up 400 ms after the first attempt.
    static let shortWindow = RetrySchedule(initialMs: 20, maximumMs: 80, windowMs: 400)

    struct Harness {
        let log = ChangeLogDouble()
        let outbox = InMemoryWebhookOutbox()
        let transport = ScriptedTransport()

        func dispatcher(schedule: RetrySchedule = fast, newEndpointsStartAfter: Int64? = nil) -> WebhookDispatcher {
            WebhookDispatcher(
                configuration: .init(endpoints: [endpoint], secret: "s3cret", schedule: schedule,
                                     maxConcurrentPerEndpoint: 4, pollInterval: .milliseconds(25)),
                log: log, outbox: outbox, transport: transport, logger: Logger(sink: { _ in }),
                cursorText: cursor, newEndpointsStartAfter: newEndpointsStartAfter)
        }

        /// Runs `body` while `dispatcher` runs; stops it after.
        func running(_ dispatcher: WebhookDispatcher, _ body: () async throws -> Void) async throws {
            let task = Task { await dispatcher.run() }
            defer { task.cancel() }
            do {
                try await body()
            } catch {
                await dispatcher.stop()
                throw error
            }
            await dispatcher.stop()
        }

        func delivered(_ user: String) -> [String] {
            transport.requests.filter { $0.body.contains("\"userId\":\"\(user)\"") }.map { $0.headers["Webhook-Id"]! }
        }
    }

    @Test func everyChangeIsPostedSignedWithItsIdAndTheProtoJSONBody() async throws {
        let harness = Harness()
        let dispatcher = harness.dispatcher()
        try await harness.running(dispatcher) {
            try await eventually("endpoint registered") { try !harness.outbox.webhookStatus().isEmpty }
            let change = harness.log.append(user: "alice", to: .active)
            try await eventually("delivery") { try harness.outbox.webhookStatus()[0].delivered == 1 }
            let request = try #require(harness.transport.requests.first)
            #expect(request.url == Self.endpoint)
            #expect(request.headers["Content-Type"] == "application/json")
            #expect(request.headers["Webhook-Id"] == change.changeID)
            #expect(request.body == ChangeJSON.body(change, cursor: cursor(change.sequence)))
            let signature = try #require(request.headers["Webhook-Signature"])
            let t = try #require(Int64(signature.dropFirst(2).prefix { $0 != "," }))
            #expect(signature == WebhookSignature.header(secret: "s3cret", unixSeconds: t, body: request.body))
            #expect(abs(t - Int64(Date().timeIntervalSince1970)) < 60)
        }
    }

    /// A new endpoint gets the changes from when the server started, not from when its
    /// dispatcher first ran: on PostgreSQL that waits for the singleton lease, and writes taken
    /// meanwhile were never delivered to it. Without the start point, it starts at the latest.
    @Test(arguments: [(Int64?.some(0), 3), (nil, 1)])
    func aNewEndpointStartsWhereTheServerStarted(startAfter: Int64?, expected: Int) async throws {
        let harness = Harness()
        for user in ["early-1", "early-2"] { harness.log.append(user: user, to: .active) }
        let dispatcher = harness.dispatcher(newEndpointsStartAfter: startAfter)
        try await harness.running(dispatcher) {
            try await eventually("endpoint registered") { try !harness.outbox.webhookStatus().isEmpty }
            harness.log.append(user: "late", to: .active)
            try await eventually("delivery") { try harness.outbox.webhookStatus()[0].delivered == expected }
            try await Task.sleep(for: .milliseconds(100))
            #expect(try harness.outbox.webhookStatus()[0].delivered == expected)
            #expect(harness.delivered("early-1").count == (startAfter == nil ? 0 : 1))
        }
    }

    /// alice's endpoint answers 500 to her first three attempts: her changes wait in order
    /// while bob's go through; then all of hers arrive, in order, each once.
    @Test func aFailingUserWaitsInOrderWhileOthersProceed() async throws {
        let harness = Harness()
        harness.transport.answer { request, _ in
            let alice = request.body.contains("\"userId\":\"alice\"")
            let aliceSoFar = alice ? harness.delivered("alice").count : 0
            return alice && aliceSoFar <= 3 ? .status(500) : .status(204)
        }
        let dispatcher = harness.dispatcher()
        try await harness.running(dispatcher) {
            try await eventually("endpoint registered") { try !harness.outbox.webhookStatus().isEmpty }
            var alice: [String] = []
            for step in 0..<3 {
                alice.append(harness.log.append(user: "alice", to: step % 2 == 0 ? .active : .gracePeriod).changeID)
                _ = harness.log.append(user: "bob", to: .active)
            }
            try await eventually("everything delivered") {
                let status = try harness.outbox.webhookStatus()[0]
                return status.delivered == 6 && status.pending == 0
            }
            // alice's first change was tried 4 times before any other of hers was tried.
            #expect(harness.delivered("alice") == Array(repeating: alice[0], count: 4) + [alice[1], alice[2]])
            #expect(harness.delivered("bob").count == 3)
            #expect(try harness.outbox.webhookStatus()[0].failedAttempts == 3)
            #expect(try harness.outbox.webhookStatus()[0].lastError == "HTTP 500")
        }
    }

    @Test func aDeliveryFailingForTheWholeWindowIsDeadLetteredAndTheNextOneProceeds() async throws {
        let harness = Harness()
        harness.transport.answer { request, _ in
            request.headers["Webhook-Id"] == "log-1" ? .failed("connection refused") : .status(200)
        }
        let dispatcher = harness.dispatcher(schedule: Self.shortWindow)
        try await harness.running(dispatcher) {
            try await eventually("endpoint registered") { try !harness.outbox.webhookStatus().isEmpty }
            harness.log.append(user: "alice", to: .active)
            harness.log.append(user: "alice", to: .expired)
            try await eventually("dead letter, then the next delivered") {
                let status = try harness.outbox.webhookStatus()[0]
                return status.deadLetters == 1 && status.delivered == 1 && status.pending == 0
            }
            let status = try harness.outbox.webhookStatus()[0]
            #expect(status.lastError == "connection refused")
            // The first failure always earns a retry; how many fit in 400 ms depends on the load.
            #expect(status.failedAttempts >= 2)
            #expect(harness.delivered("alice").last == "log-2")
        }
    }

    /// A new endpoint gets changes from now on; replay sends the earlier ones again, and the
    /// bodies in the outbox do not need the log any more (retention may prune it).
    @Test func replayResendsEarlierChangesAndPendingBodiesOutliveRetention() async throws {
        let harness = Harness()
        harness.log.append(user: "alice", to: .active)
        harness.transport.answer { _, _ in .status(503) }
        let dispatcher = harness.dispatcher()
        try await harness.running(dispatcher) {
            try await eventually("endpoint registered") { try !harness.outbox.webhookStatus().isEmpty }
            #expect(try harness.outbox.webhookStatus()[0].cursor == 1)
            harness.log.append(user: "alice", to: .revoked)
            try await eventually("enqueued") { try harness.outbox.webhookStatus()[0].cursor == 2 }
            harness.log.prune(through: 2)
            harness.transport.answer { _, _ in .status(200) }
            try await eventually("delivered after pruning") {
                try harness.outbox.webhookStatus()[0].delivered == 1
            }
            #expect(harness.delivered("alice").last == "log-2")
            await #expect(throws: WebhookReplayError.self) { try await dispatcher.replay(after: 0) }
        }
    }

    @Test func replayEnqueuesEachChangeAfterTheCursorOnceMore() async throws {
        let harness = Harness()
        let dispatcher = harness.dispatcher()
        try await harness.running(dispatcher) {
            try await eventually("endpoint registered") { try !harness.outbox.webhookStatus().isEmpty }
            for _ in 0..<3 { harness.log.append(user: "alice", to: .active) }
            try await eventually("delivered") { try harness.outbox.webhookStatus()[0].delivered == 3 }
            #expect(try await dispatcher.replay(after: 1) == 2)
            try await eventually("replayed") { try harness.outbox.webhookStatus()[0].delivered == 5 }
            #expect(harness.delivered("alice") == ["log-1", "log-2", "log-3", "log-2", "log-3"])
        }
    }
}
