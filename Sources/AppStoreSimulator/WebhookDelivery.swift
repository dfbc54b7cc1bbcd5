import Foundation
import Synchronization

/// Where the simulator POSTs notification bodies (a real HTTP client in the executable, a
/// recording one in tests). Returns the HTTP status, or nil when nothing answered.
public protocol WebhookPoster: Sendable {
    func post(_ body: [UInt8]) async -> Int?
}

/// Posts notification bodies to the webhook as the ``DeliveryPlanner`` says.
///
/// In order: one FIFO queue drained by one task, so a notification is posted only after the
/// previous one was answered, as Apple's first attempts arrive. Shuffled: each delivery is
/// its own task started after its planned delay. Like a sandbox, a failed delivery is not
/// retried: the log shows it, and the plan is what rehearses redelivery.
public final class WebhookDelivery: Sendable {
    /// One notification to deliver.
    public struct Notification: Sendable {
        public var label: String
        public var notificationUUID: String
        public var body: [UInt8]

        public init(label: String, notificationUUID: String, body: [UInt8]) {
            self.label = label
            self.notificationUUID = notificationUUID
            self.body = body
        }
    }

    /// What happened to one POST, for `GET /control/deliveries`.
    public struct Record: Sendable {
        public var label: String
        public var notificationUUID: String
        public var isDuplicate: Bool
        public var httpStatus: Int?
        /// Never posted: the ``WebhookDropPolicy`` dropped it.
        public var isDropped = false
    }

    /// One attempt as the Server API's notification history reports it (`sendAttempts`).
    public struct Attempt: Sendable, Hashable {
        public var attemptDateMs: Int64
        /// Apple's `sendAttemptResult`: SUCCESS, NO_RESPONSE, UNSUCCESSFUL_HTTP_RESPONSE_CODE.
        public var result: String
    }

    private struct State {
        var generator: SeededGenerator
        var queue: [(Notification, Bool)] = []
        var draining = false
        var inFlight = 0
        var log: [Record] = []
        var drop = WebhookDropPolicy()
        var attempts: [String: [Attempt]] = [:]
    }

    private let poster: any WebhookPoster
    private let planner: DeliveryPlanner
    private let state: Mutex<State>
    private let wallClock: @Sendable () -> Int64
    private static let logCapacity = 500

    public init(
        poster: any WebhookPoster, planner: DeliveryPlanner, seed: UInt64, drop: WebhookDropPolicy = .init(),
        wallClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.poster = poster
        self.planner = planner
        self.wallClock = wallClock
        var initial = State(generator: SeededGenerator(seed: seed))
        initial.drop = drop
        state = Mutex(initial)
    }

    /// Which deliveries to drop from now on.
    public var dropPolicy: WebhookDropPolicy {
        get { state.withLock { $0.drop } }
        set { state.withLock { $0.drop = newValue } }
    }

    /// Every attempt to deliver the notification with this UUID, oldest first.
    public func attempts(notificationUUID: String) -> [Attempt] {
        state.withLock { $0.attempts[notificationUUID] ?? [] }
    }

    /// Plans and starts delivering one batch; returns at once. Batches submitted one after
    /// another keep that order in in-order mode.
    public func submit(_ batch: [Notification]) {
        guard !batch.isEmpty else { return }
        let (plan, startDrain) = state.withLock { state in
            let plan = planner.plan(count: batch.count, using: &state.generator)
            state.inFlight += plan.count
            guard planner.order == .inOrder else { return (plan, false) }
            state.queue += plan.map { (batch[$0.index], $0.isDuplicate) }
            defer { state.draining = true }
            return (plan, !state.draining)
        }
        if planner.order == .shuffled {
            for delivery in plan {
                let notification = batch[delivery.index]
                Task {
                    try? await Task.sleep(for: .milliseconds(delivery.delayMs))
                    await self.deliver(notification, isDuplicate: delivery.isDuplicate)
                }
            }
        } else if startDrain {
            Task { await self.drain() }
        }
    }

    /// Deliveries planned but not yet answered.
    public var pending: Int { state.withLock { $0.inFlight } }

    /// The most recent deliveries, oldest first.
    public var recentDeliveries: [Record] { state.withLock { $0.log } }

    private func drain() async {
        while let (notification, isDuplicate) = state.withLock({ state -> (Notification, Bool)? in
            guard !state.queue.isEmpty else {
                state.draining = false
                return nil
            }
            return state.queue.removeFirst()
        }) {
            await deliver(notification, isDuplicate: isDuplicate)
        }
    }

    private func deliver(_ notification: Notification, isDuplicate: Bool) async {
        let dropped = state.withLock { $0.drop.shouldDrop() }
        let status = dropped ? nil : await poster.post(notification.body)
        let result = switch status {
        case nil: "NO_RESPONSE"
        case .some(200...206): "SUCCESS"
        default: "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
        }
        let attempt = Attempt(attemptDateMs: wallClock(), result: result)
        state.withLock { state in
            state.inFlight -= 1
            state.attempts[notification.notificationUUID, default: []].append(attempt)
            state.log.append(Record(label: notification.label, notificationUUID: notification.notificationUUID,
                                    isDuplicate: isDuplicate, httpStatus: status, isDropped: dropped))
            if state.log.count > Self.logCapacity { state.log.removeFirst(state.log.count - Self.logCapacity) }
        }
    }
}
