import Entitlements
import Foundation
import JWS
import ServiceRuntime

/// The App Store Server API client: signs each request with a short-lived ES256 token, keeps
/// under the configured request rate, retries what Apple says is passing (with backoff and
/// jitter, and 429's Retry-After) within the caller's deadline, and reports every request.
///
/// Returns Apple's signed data unverified: the service verifies every JWS with the same
/// verifier, roots and bundle check as V2 notifications before anything is stored.
/// A final class whose shared state (the token in use, the rate) is ``ServerAPIAccess``'s, an
/// actor that only hands out tokens and waits, so calls run in parallel.
public final class AppStoreServerClient: Sendable {
    public struct Configuration: Sendable {
        public var credentials: ServerAPICredentials
        public var productionURL: URL
        public var sandboxURL: URL
        /// Requests per second to Apple across every caller (Apple allows 50/s per app).
        public var requestsPerSecond: Double
        /// Attempts per request for retryable failures, 429 waits included.
        public var maxAttempts: Int
        public var initialBackoff: Duration
        public var maxBackoff: Duration
        /// One HTTP exchange's limit (further capped by the caller's deadline).
        public var requestTimeout: Duration
        /// The deadline of a call whose caller set none (background work).
        public var defaultDeadline: Duration

        public init(credentials: ServerAPICredentials,
                    productionURL: URL = URL(string: "https://api.storekit.apple.com")!,
                    sandboxURL: URL = URL(string: "https://api.storekit-sandbox.apple.com")!,
                    requestsPerSecond: Double = 40, maxAttempts: Int = 4,
                    initialBackoff: Duration = .milliseconds(200), maxBackoff: Duration = .seconds(5),
                    requestTimeout: Duration = .seconds(30), defaultDeadline: Duration = .seconds(120)) {
            self.credentials = credentials
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.requestsPerSecond = requestsPerSecond
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.maxBackoff = maxBackoff
            self.requestTimeout = requestTimeout
            self.defaultDeadline = defaultDeadline
        }
    }

    /// The endpoints used, as metric labels.
    public enum Endpoint: String, Sendable, CaseIterable {
        case transactionHistory = "transaction_history"
        case subscriptionStatuses = "subscription_statuses"
        case transactionInfo = "transaction_info"
        case notificationHistory = "notification_history"
        case appAccountToken = "app_account_token"
        case extendRenewalDate = "extend_renewal_date"
        case orderLookup = "order_lookup"
        case consumption = "consumption"
        case testNotification = "test_notification"
        case massExtension = "mass_extension"
        case refundHistory = "refund_history"
    }

    /// Told about every HTTP exchange: endpoint, environment, the HTTP status (0: no answer)
    /// and how long it took in seconds.
    public typealias RequestObserver = @Sendable (_ endpoint: Endpoint, _ environment: Environment,
                                                  _ status: Int, _ seconds: Double) -> Void

    public let configuration: Configuration
    let transport: any ServerAPITransport
    let access: ServerAPIAccess
    let now: UnixClock
    let observe: RequestObserver?
    /// Waits out a backoff; injectable so tests check the delays without spending them.
    let sleep: @Sendable (Duration) async throws -> Void
    /// A uniform draw in [0, 1] for jitter; injectable for tests.
    let jitter: @Sendable () -> Double

    public init(configuration: Configuration, transport: any ServerAPITransport, now: @escaping UnixClock,
                observe: RequestObserver? = nil,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        self.configuration = configuration
        self.transport = transport
        self.access = ServerAPIAccess(credentials: configuration.credentials,
                                      requestsPerSecond: configuration.requestsPerSecond, nowNs: Self.monotonicNs)
        self.now = now
        self.observe = observe
        self.sleep = sleep
        self.jitter = jitter
    }

    func baseURL(_ environment: Environment) -> URL {
        environment == .production ? configuration.productionURL : configuration.sandboxURL
    }

    static func monotonicNs() -> Int64 {
        let elapsed = ContinuousClock.now - ContinuousClock.Instant.zeroReference
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }
}

extension ContinuousClock.Instant {
    /// A fixed instant to measure the token bucket's nanoseconds from.
    static let zeroReference = ContinuousClock.now
}
