import Foundation
import SeededRandom
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
///
/// Whether a delivery is dropped is decided when its notification is submitted, not when
/// its turn comes: a ``dropPolicy`` set after an event applies to the notifications of later
/// events only, however far behind the sender is (on a loaded machine it can be well behind).
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

    /// One delivery as submitted: what to send, and what was decided about it then.
    private struct Planned: Sendable {
        var notification: Notification
        var isDuplicate: Bool
        var isDropped: Bool
    }

    private struct State {
        var generator: SplitMix64
        var queue: [Planned] = []
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
        var initial = State(generator: SplitMix64(seed: seed))
        initial.drop = drop
        state = Mutex(initial)
    }

    /// Which deliveries of notifications submitted from now on to drop.
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
        let (plan, planned, startDrain) = state.withLock { state in
            let plan = planner.plan(count: batch.count, using: &state.generator)
            let planned = plan.map {
                Planned(notification: batch[$0.index], isDuplicate: $0.isDuplicate, isDropped: state.drop.shouldDrop())
            }
            state.inFlight += plan.count
            guard planner.order == .inOrder else { return (plan, planned, false) }
            state.queue += planned
            defer { state.draining = true }
            return (plan, planned, !state.draining)
        }
        if planner.order == .shuffled {
            for (delivery, planned) in zip(plan, planned) {
                Task {
                    try? await Task.sleep(for: .milliseconds(delivery.delayMs))
                    await self.deliver(planned)
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
        while let planned = state.withLock({ state -> Planned? in
            guard !state.queue.isEmpty else {
                state.draining = false
                return nil
            }
            return state.queue.removeFirst()
        }) {
            await deliver(planned)
        }
    }

    private func deliver(_ planned: Planned) async {
        let notification = planned.notification
        let status = planned.isDropped ? nil : await poster.post(notification.body)
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
                                    isDuplicate: planned.isDuplicate, httpStatus: status,
                                    isDropped: planned.isDropped))
            if state.log.count > Self.logCapacity { state.log.removeFirst(state.log.count - Self.logCapacity) }
        }
    }
}
