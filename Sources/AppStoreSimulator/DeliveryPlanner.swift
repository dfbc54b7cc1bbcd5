import SeededRandom

/// How notifications reach the webhook: Apple's delivery rehearsed.
///
/// Apple retries, so a notification can arrive twice, and a retried one can arrive after a
/// later one. A client that is only ever tested with one-shot, in-order delivery double-grants
/// or moves state backwards in production; this planner produces the other cases on purpose.
public struct DeliveryPlanner: Sendable {
    public enum Order: String, Sendable { case inOrder = "in-order", shuffled }

    /// One POST to make: which notification, and how long after the batch was planned.
    public struct Delivery: Sendable, Hashable {
        /// Index into the planned batch.
        public var index: Int
        public var delayMs: Int64
        /// A repeat of an earlier delivery of the same notification (same body, same UUID).
        public var isDuplicate: Bool
    }

    public var order: Order
    /// Probability in 0...1 that a notification is delivered a second time.
    public var duplicateRate: Double
    /// Shuffled deliveries are spread over 0..<maxDelayMs so consecutive batches overlap too.
    public var maxDelayMs: Int64

    public init(order: Order, duplicateRate: Double, maxDelayMs: Int64 = 2000) {
        self.order = order
        self.duplicateRate = min(max(duplicateRate, 0), 1)
        self.maxDelayMs = maxDelayMs
    }

    /// The deliveries for a batch of `count` notifications, in the order to start them.
    ///
    /// In order: each once, in sequence, with no delay (the sender posts them one after the
    /// other), a duplicate right after its original. Shuffled: every delivery, duplicates
    /// included, gets an independent random delay and the list is sorted by it, so any
    /// permutation can happen. Pure: the same generator state gives the same plan.
    public func plan(count: Int, using generator: inout some RandomNumberGenerator) -> [Delivery] {
        var deliveries: [Delivery] = []
        for index in 0..<count {
            deliveries.append(Delivery(index: index, delayMs: 0, isDuplicate: false))
            if duplicateRate > 0, Double.random(in: 0..<1, using: &generator) < duplicateRate {
                deliveries.append(Delivery(index: index, delayMs: 0, isDuplicate: true))
            }
        }
        guard order == .shuffled else { return deliveries }
        for position in deliveries.indices {
            deliveries[position].delayMs = maxDelayMs > 0 ? Int64.random(in: 0..<maxDelayMs, using: &generator) : 0
        }
        deliveries.shuffle(using: &generator)
        // Stable by delay over the shuffled list, so equal delays keep a random order.
        return deliveries.enumerated().sorted { ($0.element.delayMs, $0.offset) < ($1.element.delayMs, $1.offset) }
            .map(\.element)
    }
}
