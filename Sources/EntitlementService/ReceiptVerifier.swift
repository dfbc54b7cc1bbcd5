import AppStore
import Entitlements
import Foundation
import JWS
import ServiceRuntime

/// A receipt Apple vouched for, with the environment that answered.
public struct VerifiedReceipt: Sendable {
    public var environment: Environment
    public var appleStatus: Int
    public var transactions: [Transaction]
    public var renewalInfos: [RenewalInfo]
    /// `receipt.bundle_id`, checked against `--bundle-id`.
    public var bundleID: String?
}

/// Talks to Apple's verifyReceipt: production first, the 21007/21008 environment switch,
/// retries with backoff, a fair bound on concurrent calls and one call per identical receipt.
///
/// Holds no entitlement state. Errors are ``ReceiptVerificationError``s in the service's words;
/// the RPC edge (``ServiceErrors``) phrases them for the caller.
///
/// An actor because it owns the state concurrent calls share: who waits on which flight
/// (``VerificationFlights``) and who holds or waits for a permit (``PermitQueue``). Only those
/// short, non-blocking transitions run on it; the HTTP exchange, JSON decoding and backoff are
/// `nonisolated`, so calls still run in parallel instead of queueing on its executor.
public actor ReceiptVerifier {
    public struct Configuration: Sendable {
        public var productionURL: URL
        public var sandboxURL: URL
        /// Sent as `password`; never logged.
        public var sharedSecret: String?
        public var bundleID: String?
        public var maxConcurrency: Int
        /// Attempts per endpoint for retryable failures (21005, 21009, 5xx, network errors).
        public var maxAttempts: Int
        /// Extra tries for 21002, which is malformed data *or* a passing Apple problem.
        public var malformedRetries: Int
        public var initialBackoff: Duration
        public var maxBackoff: Duration
        public var requestTimeout: Duration

        public init(productionURL: URL = URL(string: "https://buy.itunes.apple.com/verifyReceipt")!,
                    sandboxURL: URL = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt")!,
                    sharedSecret: String? = nil, bundleID: String? = nil, maxConcurrency: Int = 64,
                    maxAttempts: Int = 4, malformedRetries: Int = 2,
                    initialBackoff: Duration = .milliseconds(100), maxBackoff: Duration = .seconds(2),
                    requestTimeout: Duration = .seconds(30)) {
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.sharedSecret = sharedSecret
            self.bundleID = bundleID
            self.maxConcurrency = maxConcurrency
            self.maxAttempts = maxAttempts
            self.malformedRetries = malformedRetries
            self.initialBackoff = initialBackoff
            self.maxBackoff = maxBackoff
            self.requestTimeout = requestTimeout
        }
    }

    nonisolated let configuration: Configuration
    nonisolated let client: any AppleHTTPClient
    /// The bound on concurrent calls to Apple, first come first served.
    var permits: PermitQueue
    /// Flights by the receipt's SHA-256 (hex), not by the receipt: a receipt runs to hundreds of
    /// KB, which the dictionary hashed again on every call (a tenth of SubmitReceipt's CPU on a
    /// 300 KB one), while the digest is computed once per call anyway, for the replay key.
    var flights = VerificationFlights()
    nonisolated let now: UnixClock
    nonisolated let observe: AppleCallObserver?
    /// Waits out a backoff; injectable so tests check the delays without spending them.
    nonisolated let sleep: @Sendable (Duration) async throws -> Void

    /// Told about every call to Apple: the environment asked, the outcome and how long it took
    /// (the composition root turns the outcome into metric labels).
    public typealias AppleCallObserver = @Sendable (_ environment: Environment, _ outcome: AppleCallOutcome,
                                                    _ seconds: Double) -> Void

    /// What one call to Apple's verifyReceipt came back with.
    public enum AppleCallOutcome: Sendable {
        /// A verifyReceipt answer carrying Apple's `status`.
        case status(Int)
        /// No usable answer (see ``AppleAttemptFailure``).
        case failure(AppleAttemptFailure)
    }

    public init(configuration: Configuration, client: any AppleHTTPClient, now: @escaping UnixClock,
                observe: AppleCallObserver? = nil,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.configuration = configuration
        self.client = client
        self.permits = PermitQueue(permits: configuration.maxConcurrency)
        self.now = now
        self.observe = observe
        self.sleep = sleep
    }

    /// Verifies base64 receipt data. Concurrent calls with the same data share one verification;
    /// each caller's cancellation (RPC gone, deadline) ends only its own wait.
    public nonisolated func verify(receiptData: String) async throws -> VerifiedReceipt {
        try await verify(receiptData: receiptData, sha256: SHA256.hexHash(receiptData.utf8))
    }

    /// ``verify(receiptData:)`` for a caller that already has the data's digest:
    /// `SHA256.hexHash(receiptData.utf8)`, which joins identical receipts in one flight.
    public nonisolated func verify(receiptData: String, sha256: String) async throws -> VerifiedReceipt {
        let verified = try await shared(sha256) { [self] in
            try await self.verifyOnce(receiptData: receiptData)
        }
        if let expected = configuration.bundleID, verified.bundleID != expected {
            throw ReceiptVerificationError.otherBundle(found: verified.bundleID, expected: expected)
        }
        return verified
    }
}
