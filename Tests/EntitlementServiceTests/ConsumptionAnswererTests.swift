import AppStoreServerAPI
import EntitlementMemoryStore
import EntitlementPorts
import Entitlements
@testable import EntitlementService
import Foundation
import JWS
import Synchronization
import Testing

/// When Apple asked, in every test.
private let consumptionAskedAt: Int64 = 1_800_000_000_000

private final class Outcomes: Sendable {
    let list = Mutex<[String]>([])
}

/// Answers each request with the next status (the last one repeats); records what was sent.
private final class ScriptedConsumptionApple: ServerAPITransport, Sendable {
    let statuses: [Int]
    let sent = Mutex<[(path: String, body: String)]>([])

    init(_ statuses: [Int]) { self.statuses = statuses }

    func send(_ request: ServerAPIHTTPRequest, timeout: Duration) async throws -> ServerAPIHTTPResponse {
        let index = sent.withLock { sent in
            sent.append((path: request.url.path, body: String(decoding: request.body ?? [], as: UTF8.self)))
            return sent.count - 1
        }
        let status = statuses[min(index, statuses.count - 1)]
        return ServerAPIHTTPResponse(status: status, body: status == 202 ? [] : Array("{\"errorCode\":1}".utf8))
    }
}

private final class AnswererRun: Sendable {
    let store = InMemoryEntitlementStore(clock: { consumptionAskedAt })
    let apple: ScriptedConsumptionApple
    let outcomeLog: Outcomes
    var outcomes: [String] { outcomeLog.list.withLock { $0 } }
    let answerer: ConsumptionAnswerer

    init(_ statuses: [Int], nowMs: Int64, preference: RefundPreference = .none) throws {
        apple = ScriptedConsumptionApple(statuses)
        let credentials = ServerAPICredentials(keyID: "KEY", issuerID: "issuer", bundleID: "com.example.app",
                                               key: try ES256SigningKey.generate())
        let client = AppStoreServerClient(
            configuration: .init(credentials: credentials, productionURL: URL(string: "https://prod.test")!,
                                 sandboxURL: URL(string: "https://sandbox.test")!, requestsPerSecond: 1000,
                                 maxAttempts: 1),
            transport: apple, now: { nowMs }, sleep: { _ in }, jitter: { 0 })
        let outcomes = Outcomes()
        self.outcomeLog = outcomes
        answerer = ConsumptionAnswerer(answers: store, client: client, refundPreference: preference,
                                       now: { nowMs }, logger: nil,
                                       observe: { outcome in outcomes.list.withLock { $0.append(outcome) } })
    }

    func ask(_ id: String, consented: Bool? = true) async throws {
        try await store.recordConsumptionRequest(ConsumptionRequest(
            transactionID: id, environment: .production, requestedAtMs: consumptionAskedAt, reason: "LEGAL"))
        guard let consented else { return }
        try await store.recordConsumptionData(ConsumptionData(
            userID: "alice", transactionID: id, customerConsented: consented, consumptionPercentage: 500,
            deliveryStatus: "DELIVERED", sampleContentProvided: false, recordedAtMs: consumptionAskedAt))
    }
}

/// The consumption answerer over the reference store and a scripted Apple: one PUT per open
/// request with consented data, Apple's 400 never retried, passing trouble queued for later
/// inside the window, nothing after it; each outcome observed once.
struct ConsumptionAnswererTests {
    @Test func anOpenRequestWithConsentIsAnsweredOnceWithApplesFields() async throws {
        let run = try AnswererRun([202], nowMs: consumptionAskedAt + 3_600_000, preference: .decline)
        try await run.ask("7")
        try await run.ask("8", consented: false)
        try await run.ask("9", consented: nil)
        try await run.answerer.answerDue()
        try await run.answerer.answerDue()
        let sent = run.apple.sent.withLock { $0 }
        #expect(sent.map(\.path) == ["/inApps/v2/transactions/consumption/7"])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(sent[0].body.utf8)) as? [String: Any])
        #expect(body["refundPreference"] as? String == "DECLINE" && body["consumptionPercentage"] as? Int == 500)
        #expect(run.outcomes == ["sent"])
    }

    @Test func applesRejectionIsNeverRetried() async throws {
        let run = try AnswererRun([400], nowMs: consumptionAskedAt + 1)
        try await run.ask("7")
        try await run.answerer.answerDue()
        try await run.answerer.answerDue()
        #expect(run.apple.sent.withLock { $0.count } == 1)
        #expect(run.outcomes == ["rejected"])
    }

    @Test func passingTroubleIsQueuedForLaterNotRetriedAtOnce() async throws {
        let run = try AnswererRun([503, 202], nowMs: consumptionAskedAt + 1)
        try await run.ask("7")
        try await run.answerer.answerDue()
        try await run.answerer.answerDue()
        #expect(run.apple.sent.withLock { $0.count } == 1, "the next attempt waits ConsumptionRules.retryDelayMs")
        #expect(run.outcomes == ["retry"])
        let due = try await run.store.dueConsumptionAnswers(nowMs: consumptionAskedAt + 1 + 30_000, limit: 10)
        #expect(due.map(\.attempts) == [1])
    }

    @Test func nothingIsSentAfterTheTwelveHours() async throws {
        let run = try AnswererRun([202], nowMs: consumptionAskedAt + ConsumptionRules.answerWindowMs)
        try await run.ask("7")
        try await run.ask("8", consented: nil)
        try await run.answerer.answerDue()
        #expect(run.apple.sent.withLock { $0.isEmpty })
        #expect(run.outcomes == ["expired", "expired"])
        let later = try await run.store.dueConsumptionAnswers(nowMs: consumptionAskedAt + 100 * 3_600_000, limit: 10)
        #expect(later.isEmpty)
    }
}
