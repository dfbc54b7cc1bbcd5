/// Open-loop arrivals for `--rate`: request k is due at `start + k / rate` whatever the server
/// does, as requests from a client's own callers would be.
///
/// A due request waits in the backlog until a connection has a stream free, and its latency
/// counts from when it was due, not from when it was sent: a server that falls behind shows as
/// latency instead of quietly slowing the client down (no coordinated omission). The closed
/// loop (`--rate 0`, every finished request replaced at once) measures throughput, and at
/// saturation its p99 follows the throughput; this measures what a caller with headroom sees.
struct RateSchedule {
    let start: UInt64
    let intervalNs: Double
    private(set) var issued: UInt64 = 0
    /// Due times of requests not yet sent, oldest first from `head`.
    private var backlog: [UInt64] = []
    private var head = 0
    /// Where the next round over the connections starts, so none is always first.
    var nextConnection = 0

    init(start: UInt64, perSecond rate: Double) {
        self.start = start
        intervalNs = 1e9 / rate
    }

    /// When request `k` is due.
    func due(_ k: UInt64) -> UInt64 { start + UInt64(Double(k) * intervalNs) }

    /// When the next request not yet in the backlog is due.
    var nextDue: UInt64 { due(issued) }

    var waiting: Int { backlog.count - head }

    /// Moves every request due by `now` into the backlog.
    mutating func collect(now: UInt64) {
        while due(issued) <= now {
            backlog.append(due(issued))
            issued += 1
        }
    }

    /// The oldest waiting request's due time, taken off the backlog.
    mutating func take() -> UInt64? {
        guard head < backlog.count else { return nil }
        let dueAt = backlog[head]
        head += 1
        if head == backlog.count {
            backlog.removeAll(keepingCapacity: true)
            head = 0
        }
        return dueAt
    }
}
