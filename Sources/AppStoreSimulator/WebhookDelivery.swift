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
    }

    private struct State {
        var generator: SeededGenerator
        var queue: [(Notification, Bool)] = []
        var draining = false
        var inFlight = 0
        var log: [Record] = []
    }

    private let poster: any WebhookPoster
    private let planner: DeliveryPlanner
    private let state: Mutex<State>
    private static let logCapacity = 500

    public init(poster: any WebhookPoster, planner: DeliveryPlanner, seed: UInt64) {
        self.poster = poster
        self.planner = planner
        state = Mutex(State(generator: SeededGenerator(seed: seed)))
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
        let status = await poster.post(notification.body)
        state.withLock { state in
            state.inFlight -= 1
            state.log.append(Record(label: notification.label, notificationUUID: notification.notificationUUID,
                                    isDuplicate: isDuplicate, httpStatus: status))
            if state.log.count > Self.logCapacity { state.log.removeFirst(state.log.count - Self.logCapacity) }
        }
    }
}
