import Entitlements
import Foundation
import HTTPCore
import JWS
import Synchronization

/// The simulated App Store behind one HTTP service: verifyReceipt at Apple's two paths, the
/// App Store Server API (production at `/inApps/...`, sandbox at `/sandbox/inApps/...`), and a
/// JSON control API under `/control/`; every simulated event goes to the webhook and to the
/// notification history.
///
/// The I/O shell around ``Simulation``: it reads the wall clock before every request (so due
/// renewals happen as real time passes), signs, and hands notification bodies to
/// ``WebhookDelivery`` while still holding the lock, so batches are submitted in the order
/// they happened. Every request is answered inline on the transport's loop thread: each is
/// a few dictionary operations and at most a handful of ES256 signatures.
public final class AppStoreSimulator: Sendable {
    private let simulation: Mutex<Simulation>
    let composer: NotificationComposer
    let delivery: WebhookDelivery?
    let rootPEM: String
    /// Multiplies named periods and durations ("30d") from the control API; `_ms` values are exact.
    let periodScale: Double
    let wallClock: @Sendable () -> Int64
    /// The key the Server API checks tokens with; nil serves the Server API to no one (401).
    let apiKey: ServerAPIKey?
    /// Items per page of transaction and notification history (Apple: 20); small values
    /// make clients exercise paging.
    let apiPageSize: Int
    let appAppleID: Int64
    let history = Mutex(NotificationHistory())
    let apiFaults = Mutex(ServerAPIFaults())
    /// Consumption answers received, by transaction id: each request's JSON body as sent.
    let consumptionAnswers = Mutex<[String: [String]]>([:])
    /// TEST notifications sent, by testNotificationToken: their UUID and signed payload.
    let testNotifications = Mutex<[String: (uuid: String, signedPayload: String)]>([:])

    public init(
        configuration: Simulation.Configuration, composer: NotificationComposer, rootPEM: String,
        delivery: WebhookDelivery?, periodScale: Double = 1, apiKey: ServerAPIKey? = nil, apiPageSize: Int = 20,
        wallClock: @escaping @Sendable () -> Int64
    ) {
        simulation = Mutex(Simulation(configuration: configuration, wallMs: wallClock()))
        self.composer = composer
        self.rootPEM = rootPEM
        self.delivery = delivery
        self.periodScale = periodScale
        self.apiKey = apiKey
        self.apiPageSize = max(apiPageSize, 1)
        appAppleID = configuration.appAppleID
        self.wallClock = wallClock
    }

    /// A summary of each notification an action produced, for the control API's answer.
    struct Performed {
        var outcome: Simulation.Outcome
        var nowMs: Int64
        var signedTransaction: String?
    }

    /// Lets real time pass, runs `action`, and submits every resulting notification.
    func perform(
        _ action: (inout Simulation) throws(SimulatorError) -> Simulation.Outcome
    ) throws(SimulatorError) -> Performed {
        try simulation.withLock { (simulation: inout Simulation) throws(SimulatorError) -> Performed in
            let passed = simulation.observeWallClock(wallClock())
            submit(passed)
            let outcome = try action(&simulation)
            submit(outcome.events)
            let signed = try outcome.transaction.map { (transaction) throws(SimulatorError) in
                try sign { () throws(JWSError) in try composer.signedTransaction(transaction, at: simulation.nowMs) }
            }
            return Performed(outcome: outcome, nowMs: simulation.nowMs, signedTransaction: signed)
        }
    }

    /// Reads the simulation after letting real time pass (notifications of what fell due go out).
    func read<T>(_ body: (Simulation) throws(SimulatorError) -> T) throws(SimulatorError) -> T {
        try simulation.withLock { (simulation: inout Simulation) throws(SimulatorError) -> T in
            submit(simulation.observeWallClock(wallClock()))
            return try body(simulation)
        }
    }

    /// Changes the simulation outside the control API, after letting real time pass: the
    /// Server API's one write (Set App Account Token), after which Apple notifies nothing.
    func write<T>(_ body: (inout Simulation) -> T) -> T {
        simulation.withLock { (simulation: inout Simulation) -> T in
            submit(simulation.observeWallClock(wallClock()))
            return body(&simulation)
        }
    }

    /// Records each event's V2 payload in the notification history (whatever the webhook's
    /// version, as Apple's history is V2 only) and hands the webhook bodies to delivery.
    private func submit(_ events: [SimulatedEvent]) {
        guard !events.isEmpty else { return }
        var batch: [WebhookDelivery.Notification] = []
        let sentAt = wallClock()
        for event in events {
            guard let signedPayload = try? composer.signedPayload(event) else { continue }
            history.withLock {
                $0.append(.init(notificationUUID: event.notificationUUID, environment: event.environment,
                                sentAtMs: sentAt, signedPayload: signedPayload))
            }
            guard delivery != nil else { continue }
            let body = composer.version == .v2
                ? Array("{\"signedPayload\":\"\(signedPayload)\"}".utf8) : try? composer.body(for: event)
            guard let body else { continue }
            let label = composer.version == .v1
                ? event.v1NotificationType ?? event.notificationType
                : [event.notificationType, event.subtype].compactMap { $0 }.joined(separator: "/")
            batch.append(.init(label: label, notificationUUID: event.notificationUUID, body: body))
        }
        delivery?.submit(batch)
    }

    private func sign(_ body: () throws(JWSError) -> String) throws(SimulatorError) -> String {
        do {
            return try body()
        } catch {
            throw SimulatorError(.conflict, "signing failed: \(error.message)")
        }
    }
}
