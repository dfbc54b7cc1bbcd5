import AppStoreServerAPI
import EntitlementPorts
import Entitlements
import ServiceRuntime
import Synchronization

/// Answers Apple's refund questions: for each CONSUMPTION_REQUEST whose transaction has data
/// with the customer's consent, `PUT /inApps/v2/transactions/consumption/{id}` once, within
/// Apple's 12 hours.
///
/// The queue is the store's (``ConsumptionAnswers``), so a request that arrived before a crash
/// is answered after it. Apple's passing trouble (5xx, 429, no answer) is retried by the client
/// within one pass, then by the queue with growing waits while the window lasts; Apple's 400 is
/// logged with its reason and never sent again; after the window nothing is sent. Runs as a
/// singleton duty (one replica answers); RecordConsumption and an arriving request ``nudge()``
/// it so an answer does not wait for the next look.
public final class ConsumptionAnswerer: Sendable {
    /// An outcome as metrics count it: `sent`, `rejected`, `retry`, `expired`.
    public typealias OutcomeObserver = @Sendable (_ outcome: String) -> Void

    let answers: any ConsumptionAnswers
    let client: AppStoreServerClient
    let refundPreference: RefundPreference
    let now: UnixClock
    let logger: Logger?
    let observe: OutcomeObserver?
    private let nudged = Mutex(false)

    public init(answers: any ConsumptionAnswers, client: AppStoreServerClient, refundPreference: RefundPreference,
                now: @escaping UnixClock, logger: Logger?, observe: OutcomeObserver? = nil) {
        self.answers = answers
        self.client = client
        self.refundPreference = refundPreference
        self.now = now
        self.logger = logger
        self.observe = observe
    }

    /// Asks the running loop to look now instead of at its next interval.
    public func nudge() {
        nudged.withLock { $0 = true }
    }

    /// Looks at the queue every `interval` (sooner when nudged) until cancelled.
    public func runPeriodically(every interval: Duration) async {
        while !Task.isCancelled {
            nudged.withLock { $0 = false }
            do {
                try await answerDue()
            } catch is CancellationError {
                return
            } catch {
                logger?.warning("reading the consumption answers owed failed; retrying", [("error", "\(error)")])
            }
            var waited = Duration.zero
            while waited < interval, !nudged.withLock({ $0 }), !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                waited += .milliseconds(100)
            }
        }
    }

    /// One look: every owed answer that can be sent is sent, every one past its window given up.
    public func answerDue() async throws {
        let tasks = try await answers.dueConsumptionAnswers(nowMs: now(), limit: 100)
        for task in tasks {
            try Task.checkCancellation()
            try await answer(task)
        }
    }

    func answer(_ task: ConsumptionAnswerTask) async throws {
        let request = task.request
        let startedMs = now()
        let windowEndMs = request.requestedAtMs + ConsumptionRules.answerWindowMs
        guard ConsumptionRules.decision(requestedAtMs: request.requestedAtMs, data: task.data, nowMs: startedMs)
                == .send, let data = task.data else {
            if startedMs >= windowEndMs {
                try await record(.expired, task)
                logger?.warning("Apple's consumption request went unanswered within its 12 hours", [
                    ("transaction_id", request.transactionID),
                    ("why", task.data == nil ? "no consumption data recorded" : "no customer consent")])
            }
            return
        }
        let body = AppStoreServerClient.consumptionBody(
            customerConsented: data.customerConsented, consumptionPercentage: data.consumptionPercentage,
            deliveryStatus: data.deliveryStatus, sampleContentProvided: data.sampleContentProvided,
            refundPreference: refundPreference.appleName)
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(min(30_000, max(windowEndMs - startedMs, 1))))
        do {
            try await client.sendConsumption(transactionID: request.transactionID, body: body,
                                             environment: request.environment, deadline: deadline)
            try await record(.sent, task)
            logger?.info("consumption information sent to Apple", [
                ("transaction_id", request.transactionID), ("user_id", data.userID),
                ("delivery_status", data.deliveryStatus)])
        } catch let error as ServerAPIError where [.invalidRequest, .refused, .notFound].contains(error.code) {
            try await record(.rejected(reason: error.message), task)
            logger?.error("Apple rejected the consumption information; it is not sent again", [
                ("transaction_id", request.transactionID), ("reason", error.message)])
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let next = now() + ConsumptionRules.retryDelayMs(attempts: task.attempts + 1)
            try await record(.retry(nextAttemptAtMs: next, reason: "\(error)"), task)
            logger?.warning("sending consumption information failed; retrying within Apple's window", [
                ("transaction_id", request.transactionID), ("error", "\(error)"),
                ("next_attempt_at_ms", String(next))])
        }
    }

    private func record(_ outcome: ConsumptionOutcome, _ task: ConsumptionAnswerTask) async throws {
        try await answers.recordConsumptionOutcome(outcome, transactionID: task.request.transactionID, atMs: now())
        switch outcome {
        case .sent: observe?("sent")
        case .rejected: observe?("rejected")
        case .expired: observe?("expired")
        case .retry: observe?("retry")
        }
    }
}
