import EntitlementAPI
import EntitlementPorts
import RPCCore
import ServiceRuntime
import Synchronization

/// Delivers the change log to WatchEntitlementChanges calls: each newly committed batch is read
/// from the log once, on this component's thread, and handed to every live watcher it concerns.
///
/// A watcher is *live* once it has replayed the log up to the fan-out's ``State/position``
/// (everything at or before it was handed to live watchers); until then it reads the log
/// itself from its own cursor (``watch(_:stream:)``), at the pace its client reads. Joining is
/// checked under the same lock the fan-out delivers under, and each watcher keeps the
/// sequence it has sent up to, so the seam between replay and live has no gap and no duplicate.
///
/// Live delivery never waits: a client that leaves more than the per-call bound unread is
/// ended with RESOURCE_EXHAUSTED (it resumes from its last cursor by replaying) and nobody
/// else is held up. Blocking log reads (SQLite) run on this component's own thread, never on
/// Swift's cooperative pool: the fan-out's reads and the replaying watchers' reads alike.
public final class ChangeFanOut: Sendable {
    public typealias Stream = RPCServerStream<EntitlementV1.EntitlementChange>

    /// One watch call from registration to its end. `cursor` and `isLive` are guarded by the
    /// fan-out's lock.
    final class Watcher: @unchecked Sendable {
        let userID: String?
        let stream: Stream
        /// Live: the sequence of the last change this watcher has been handed (or replayed to).
        var cursor: Int64 = 0
        init(userID: String?, stream: Stream) {
            self.userID = userID
            self.stream = stream
        }
    }

    struct State {
        /// Every committed change at or before this was handed to the live watchers.
        var position: Int64 = 0
        var shuttingDown = false
        var registered: [ObjectIdentifier: Watcher] = [:]
        /// Live watchers by their user filter (nil: every user).
        var live: [String?: [ObjectIdentifier: Watcher]] = [:]
    }

    let log: any EntitlementChangeLog
    let pageSize: Int
    let reportFailure: @Sendable (any Error) -> Void
    let state = Mutex(State())
    let queue = FanOutQueue()
    let stopped = Latch()

    /// `pageSize` bounds one log read (fan-out batch or replay page); `reportFailure` hears of
    /// log reads that failed (the live watchers are then ended with UNAVAILABLE).
    public init(log: any EntitlementChangeLog, pageSize: Int = 512,
                reportFailure: @escaping @Sendable (any Error) -> Void = { _ in }) {
        self.log = log
        self.pageSize = pageSize
        self.reportFailure = reportFailure
    }

    /// Subscribes to commits and starts the thread; live delivery starts from the newest change.
    public func start() throws {
        let queue = self.queue
        // Subscribe before reading the position: a commit in between is then signalled too.
        log.onChangesCommitted { sequence in queue.committed(sequence) }
        let latest = try log.changeLogBounds().latest
        state.withLock { $0.position = latest }
        let stopped = self.stopped
        ServiceThread.detach {
            self.serve()
            stopped.open()
        }
    }

    /// Returns once ``shutdown()`` has stopped the thread.
    public func run() async {
        await stopped.wait()
    }

    /// Ends every watch call with UNAVAILABLE (clients reconnect, to this server once it is
    /// back or to another, with their last cursor) and refuses new ones, then stops the thread.
    /// Called before the listeners drain, so open streams do not hold up the grace period.
    public func shutdown() {
        let watchers = state.withLock { state in
            state.shuttingDown = true
            return Array(state.registered.values)
        }
        for watcher in watchers { watcher.stream.end(with: ChangeFanOut.shuttingDown) }
        queue.stop()
    }

    /// Watch calls open now (replaying or live): the watchers-connected gauge.
    public var watchersConnected: Int { state.withLock { $0.registered.count } }

    static let shuttingDown = RPCError(
        .unavailable, "the server is shutting down; watch again with after_cursor = the last cursor you received")

    private func serve() {
        while let (jobs, committed) = queue.next(position: state.withLock { $0.position }) {
            for job in jobs { job() }
            if let committed { deliverCommitted(through: committed) }
        }
    }

    /// Reads what was committed after ``State/position`` and hands it to the live watchers.
    ///
    /// With no watcher live the position moves to `newest` without reading: there is nobody to
    /// hand the changes to, and a watcher still replaying reads them itself (it goes live only
    /// once it has replayed through the position). Reading the log after every commit cost
    /// ~24 k instructions per distinct SubmitReceipt on a server nobody watched.
    private func deliverCommitted(through newest: Int64) {
        let nobodyLive = state.withLock { state in
            guard state.live.values.allSatisfy(\.isEmpty) else { return false }
            state.position = max(state.position, newest)
            return true
        }
        if nobodyLive { return }
        while true {
            let position = state.withLock { $0.position }
            let batch: [EntitlementChange]
            do {
                batch = try log.changes(after: position, userID: nil, limit: pageSize)
            } catch {
                reportFailure(error)
                endLiveWatchers(RPCError(
                    .unavailable, "the change log could not be read; watch again with the last cursor you received",
                    cause: error))
                queue.pause()
                return
            }
            guard let last = batch.last else { return }
            deliver(batch, through: last.sequence)
            if batch.count < pageSize { return }
        }
    }

    private func deliver(_ batch: [EntitlementChange], through last: Int64) {
        state.withLock { state in
            for change in batch {
                var framed: RPCResponseBody?
                for key in [nil, change.userID] as [String?] {
                    guard let group = state.live[key] else { continue }
                    for (id, watcher) in group where change.sequence > watcher.cursor {
                        let body = framed ?? RPCResponseBody(APIMapping.change(change))
                        framed = body
                        do {
                            try watcher.stream.send(framed: body)
                            watcher.cursor = change.sequence
                        } catch {
                            // Ended (unread bytes over the bound, or the call is gone): no more.
                            state.live[key]?[id] = nil
                        }
                    }
                }
            }
            state.position = max(state.position, last)
        }
    }

    private func endLiveWatchers(_ error: RPCError) {
        let watchers = state.withLock { state in
            defer { state.live.removeAll() }
            return state.live.values.flatMap(\.values)
        }
        for watcher in watchers { watcher.stream.end(with: error) }
    }
}
