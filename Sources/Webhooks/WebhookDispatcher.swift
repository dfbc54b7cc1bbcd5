import EntitlementPorts
import Foundation
import ServiceRuntime
import Synchronization

/// Pushes every entitlement change to the configured endpoints.
///
/// Two loops, both off every request path. The feed loop copies the change log into the
/// durable outbox (``WebhookOutbox``) from the endpoints' cursors, body frozen, cursor advanced
/// in the same transaction; it is woken by every commit that appended changes and by a ticker,
/// so a lost wake-up only delays. The delivery loop takes each endpoint's due rows (the oldest
/// of each user: in order per user, other users proceed), POSTs them in child tasks (at most
/// ``Configuration/maxConcurrentPerEndpoint`` per endpoint, so a dead endpoint holds a bounded
/// number of tasks and never another endpoint's turn), and records the outcomes in one store
/// write per wake-up. An outcome is recorded only after the attempt: a crash (SIGKILL) between
/// the POST and that write delivers the change again after restart (at least once, the same
/// `Webhook-Id`), never loses it.
public final class WebhookDispatcher: Sendable {
    public struct Configuration: Sendable {
        public var endpoints: [URL]
        public var secret: String
        public var schedule: RetrySchedule
        /// One POST's limit; longer counts as a failed attempt.
        public var timeout: Duration
        public var maxConcurrentPerEndpoint: Int
        /// How often due retries are looked for (and the log re-read, in case a wake-up was lost).
        public var pollInterval: Duration
        public var feedBatchSize: Int

        public init(endpoints: [URL], secret: String, schedule: RetrySchedule = .standard,
                    timeout: Duration = .seconds(10), maxConcurrentPerEndpoint: Int = 16,
                    pollInterval: Duration? = nil, feedBatchSize: Int = 500) {
            self.endpoints = endpoints
            self.secret = secret
            self.schedule = schedule
            self.timeout = timeout
            self.maxConcurrentPerEndpoint = max(1, maxConcurrentPerEndpoint)
            // Retries are due no sooner than schedule.initialMs after a failure, so polling at
            // that interval (1 s in production) delays a retry by at most one more interval;
            // each poll is one indexed query per endpoint, cheap even with a large backlog.
            self.pollInterval = pollInterval ?? .milliseconds(min(1_000, max(10, schedule.initialMs)))
            self.feedBatchSize = max(1, feedBatchSize)
        }
    }

    /// What the dispatcher tells the metrics: one attempt's result, per endpoint.
    public enum Event: Sendable {
        case attempt(endpoint: String, outcome: WebhookAttemptOutcome.Result)
    }

    let configuration: Configuration
    let log: any EntitlementChangeLog
    let outbox: any WebhookOutbox
    let transport: any WebhookTransport
    let clock: @Sendable () -> Int64
    let random: @Sendable () -> Double
    let cursorText: @Sendable (Int64) -> String
    let observe: @Sendable (Event) -> Void
    let logger: Logger
    /// Where an endpoint seen for the first time starts: the change log's latest sequence when
    /// the server started, so writes accepted before this dispatcher ran (on PostgreSQL it waits
    /// for the singleton lease) still reach a new endpoint; nil: the latest at registration.
    let newEndpointsStartAfter: Int64?

    let feedWakes: AsyncStream<Void>
    let feedWake: AsyncStream<Void>.Continuation
    let deliveryWakes: AsyncStream<Void>
    let deliveryWake: AsyncStream<Void>.Continuation
    /// Outcomes of finished attempts, recorded by the delivery loop on its next turn.
    let finished = Mutex<[WebhookAttemptOutcome]>([])
    let stopped = Latch()
    private let done = Latch()

    /// `cursorText` turns a change's sequence into the opaque cursor of the body (the one
    /// WatchEntitlementChanges and `replay --from` use); `clock` gives Unix milliseconds.
    public init(configuration: Configuration, log: any EntitlementChangeLog, outbox: any WebhookOutbox,
                transport: any WebhookTransport, logger: Logger,
                clock: @escaping @Sendable () -> Int64 = WallClock.unixMilliseconds,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                cursorText: @escaping @Sendable (Int64) -> String,
                observe: @escaping @Sendable (Event) -> Void = { _ in }, newEndpointsStartAfter: Int64? = nil) {
        self.configuration = configuration
        self.newEndpointsStartAfter = newEndpointsStartAfter
        self.log = log
        self.outbox = outbox
        self.transport = transport
        self.logger = logger
        self.clock = clock
        self.random = random
        self.cursorText = cursorText
        self.observe = observe
        (feedWakes, feedWake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (deliveryWakes, deliveryWake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        log.onChangesCommitted { [feedWake] _ in feedWake.yield() }
    }

    /// Feeds and delivers until ``stop()``; call once.
    public func run() async {
        defer { done.open() }
        guard let cursor = await registerEndpoints() else { return }
        feedWake.yield()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.feedLoop(from: cursor) }
            group.addTask { await self.deliveryLoop() }
            group.addTask {
                while !self.stopped.isOpen {
                    try? await Task.sleep(for: self.configuration.pollInterval)
                    self.feedWake.yield()
                    self.deliveryWake.yield()
                }
            }
            await stopped.wait()
            // Ends the ticker's sleep and the POSTs in flight (the HTTP client ends their transfers).
            group.cancelAll()
        }
    }

    /// Stops both loops: attempts in flight are abandoned unrecorded (they are tried again
    /// after restart), outcomes already known are recorded. Returns once ``run()`` has.
    public func stop() async {
        stopped.open()
        feedWake.finish()
        deliveryWake.finish()
        await done.wait()
    }

    /// Registers the configured endpoints, retrying while the store refuses; the lowest cursor,
    /// or nil when stopped first.
    private func registerEndpoints() async -> Int64? {
        while !stopped.isOpen {
            do {
                let latest = try newEndpointsStartAfter ?? log.changeLogBounds().latest
                let cursors = try await outbox.registerWebhookEndpoints(
                    configuration.endpoints.map(\.absoluteString), latestSequence: latest, nowMs: clock())
                return cursors.values.min() ?? latest
            } catch {
                logger.error("webhooks: cannot register the endpoints; retrying", [("error", "\(error)")])
                try? await Task.sleep(for: .seconds(1))
            }
        }
        return nil
    }
}
