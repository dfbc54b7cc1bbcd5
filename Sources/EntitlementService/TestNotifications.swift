import AppStore
import AppStoreServerAPI
import Entitlements
import JWS
import ServiceRuntime
import Synchronization

/// Apple's TEST notifications as this process received them, and the operator's check that
/// the webhook path works end to end (`entitlementctl apple test-notification`).
///
/// Kept in memory: a TEST changes no fact, and the check asks the process that received it.
/// With several replicas behind one URL the TEST may reach another replica; the check then
/// reports Apple's attempts (SUCCESS) without seeing the arrival itself.
public final class TestNotifications: Sendable {
    public struct Received: Sendable, Equatable {
        public var notificationUUID: String
        public var receivedAtMs: Int64
    }

    private let received = Mutex<[String: [Received]]>([:])

    public init() {}

    /// Records a verified TEST (the ingestor calls it); keeps the last few per environment.
    public func record(notificationUUID: String, environment: Environment, atMs: Int64) {
        received.withLock { received in
            var list = received[environment.rawValue, default: []]
            list.append(Received(notificationUUID: notificationUUID, receivedAtMs: atMs))
            received[environment.rawValue] = Array(list.suffix(20))
        }
    }

    /// The last TEST received from `environment`.
    public func last(environment: Environment) -> Received? {
        received.withLock { $0[environment.rawValue]?.last }
    }

    func hasReceived(_ uuid: String) -> Bool {
        received.withLock { $0.values.contains { $0.contains { $0.notificationUUID == uuid } } }
    }

    /// What one check found.
    public struct Report: Sendable {
        public var environment: Environment
        public var notificationUUID: String
        /// The TEST reached this process's webhook.
        public var arrived: Bool
        public var sendAttempts: [TestNotificationStatus.SendAttempt]
    }

    /// Asks Apple for a TEST in `environment`, then asks Apple about its delivery until it has
    /// arrived here (and Apple reports an attempt), or `waitFor` passes.
    public func check(client: AppStoreServerClient, environment: Environment, waitFor: Duration) async throws
        -> Report {
        let token = try await client.requestTestNotification(environment: environment)
        let started = ContinuousClock.now
        var status = try await client.testNotificationStatus(token: token, environment: environment)
        var uuid = Self.uuid(of: status)
        while true {
            let arrived = uuid.map(hasReceived) ?? false
            if (arrived && !status.sendAttempts.isEmpty) || ContinuousClock.now - started >= waitFor {
                return Report(environment: environment, notificationUUID: uuid ?? "", arrived: arrived,
                              sendAttempts: status.sendAttempts)
            }
            // Once a second: each look is a request against the app's Server API rate.
            try await Task.sleep(for: .seconds(1))
            status = try await client.testNotificationStatus(token: token, environment: environment)
            uuid = uuid ?? Self.uuid(of: status)
        }
    }

    /// The TEST's notificationUUID, read from Apple's signed payload without verifying it: it
    /// only says which arrival to look for, and an arrival is recorded only once verified.
    static func uuid(of status: TestNotificationStatus) -> String? {
        guard let signed = status.signedPayload, let bytes = try? JWSVerifier.unverifiedPayload(signed),
              let payload = try? NotificationV2Payload.parse(bytes) else { return nil }
        return payload.notificationUUID
    }
}
