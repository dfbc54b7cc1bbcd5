import AppStore
import EntitlementPorts
import Entitlements
import JWS
import ServiceRuntime

/// Turns Apple's webhook posts (V1 JSON, V2 signed JWS) into store writes.
///
/// Validation and decoding happen here; the store commits (group commit) and the decision is
/// returned only after that commit. The decision is in domain words (``IngestedNotification``);
/// the webhook edge chooses the HTTP answer and the metric labels.
///
/// An actor because it owns what concurrent deliveries share: which notifications are being
/// applied now (``NotificationsInFlight``: Apple's redelivery and a reconciliation run can bring
/// the same one at once, and it is applied once) and whether a reconciliation runs. Only those
/// short transitions run on it: ES256 and X.509 checks are CPU-bound and independent, so
/// decoding and verification are `nonisolated` and run in parallel on the cooperative pool.
public actor NotificationIngestor {
    public struct Configuration: Sendable {
        public var sharedSecret: String?
        public var bundleID: String?
        public var maxBodyBytes: Int
        public init(sharedSecret: String?, bundleID: String?, maxBodyBytes: Int = 1 << 20) {
            self.sharedSecret = sharedSecret
            self.bundleID = bundleID
            self.maxBodyBytes = maxBodyBytes
        }
    }

    nonisolated let configuration: Configuration
    nonisolated let verifier: JWSVerifier
    nonisolated let repository: any EntitlementRepository
    nonisolated let logger: Logger
    nonisolated let now: UnixClock
    nonisolated let observeOwnership: OwnershipObserver?
    /// Told of each CONSUMPTION_REQUEST once its notification is stored (a redelivery too, so a
    /// request whose recording failed is recorded when Apple retries); it must be durable when
    /// it returns, or throw (Apple is then asked to retry).
    nonisolated let consumptionRequested: (@Sendable (ConsumptionRequest) async throws -> Void)?
    /// Where verified TEST notifications are recorded, for the operator's end-to-end check.
    nonisolated let testNotifications: TestNotifications?
    /// Notifications being applied now, by source id.
    var inFlight = NotificationsInFlight()
    /// Whether a ``NotificationReconciler`` run is in progress (runs never overlap).
    var reconciling = false

    public init(configuration: Configuration, verifier: JWSVerifier, repository: any EntitlementRepository,
                logger: Logger, now: @escaping UnixClock, observeOwnership: OwnershipObserver? = nil,
                consumptionRequested: (@Sendable (ConsumptionRequest) async throws -> Void)? = nil,
                testNotifications: TestNotifications? = nil) {
        self.testNotifications = testNotifications
        self.consumptionRequested = consumptionRequested
        self.observeOwnership = observeOwnership
        self.configuration = configuration
        self.verifier = verifier
        self.repository = repository
        self.logger = logger
        self.now = now
    }

    /// Validates, decodes and durably applies one webhook body.
    ///
    /// The same notification arriving while it is being applied waits for that write instead
    /// of racing it for the same rows, and is answered as a duplicate once it is stored.
    public nonisolated func ingest(_ body: [UInt8]) async -> IngestedNotification {
        guard body.count <= configuration.maxBodyBytes else {
            let rejection = NotificationRejection(.tooLarge, "body over \(configuration.maxBodyBytes) bytes")
            return IngestedNotification(version: .unknown, notificationID: "-", disposition: .rejected(rejection))
        }
        // Hashed only when used (V1, refusals): a V2 body is ~10 KB and carries its own id.
        let bodyID = { "v1:" + SHA256.hexHash(body) }
        let decoded: (write: NotificationWrite, type: String)
        var version = IngestedNotification.Version.v1
        do {
            switch try decode(body) {
            case .v2(let signedPayload):
                version = .v2
                guard let notification = try verifyV2(signedPayload) else {
                    return IngestedNotification(version: .v2, notificationType: "TEST", notificationID: "test",
                                                disposition: .test)
                }
                decoded = notification
            case .v1(let notification):
                decoded = try authenticateV1(notification, sourceID: bodyID())
            }
        } catch {
            return IngestedNotification(version: version, notificationID: error.notificationID ?? bodyID(),
                                        disposition: .rejected(error))
        }
        let write = decoded.write
        logMalformedTokens(in: write)
        func result(_ disposition: NotificationDisposition) -> IngestedNotification {
            IngestedNotification(version: version, notificationType: decoded.type, notificationID: write.sourceID,
                                 disposition: disposition)
        }
        if let earlier = await admit(write.sourceID) { return result(earlier) }
        let disposition = await store(write)
        await settle(write.sourceID, disposition)
        return result(disposition)
    }

    /// Applies `write` durably; the disposition says what happened, never throws, so the
    /// in-flight entry is always settled.
    private nonisolated func store(_ write: NotificationWrite) async -> NotificationDisposition {
        do {
            let outcome = try await repository.apply(write)
            try await recordConsumptionRequests(in: write)
            if outcome.ownershipTransfers > 0 { observeOwnership?(.transferred(count: outcome.ownershipTransfers)) }
            if outcome.duplicate { return .duplicate }
            if outcome.ownerUserIDs.isEmpty { return .orphaned }
            return .accepted(owners: outcome.ownerUserIDs.count, newTransactions: outcome.newTransactions)
        } catch let error as StoreError where error.code == .invalidWrite {
            return .rejected(NotificationRejection(.unstorable, "notification cannot be stored: \(error)",
                                                   notificationID: write.sourceID))
        } catch {
            // The store cannot write now (disk full, I/O error, shutting down): Apple retries.
            // The cause (SQL, paths) goes to the log only, never into the answer.
            logger.log(.error, "storing a notification failed",
                       [("notification_id", write.sourceID), ("error", "\(error)")])
            let unavailable = (error as? StoreError).map { $0.code == .storageFailure || $0.code == .closed } ?? false
            return unavailable ? .retryLater : .failed
        }
    }

    /// Hands each consumption request of `write` to ``consumptionRequested``: Apple's 12 hours
    /// count from the event's time (V2 signedDate), its reason is Apple's.
    private nonisolated func recordConsumptionRequests(in write: NotificationWrite) async throws {
        guard let consumptionRequested else { return }
        for event in write.events where event.kind == .consumptionRequest && !event.transactionID.isEmpty {
            try await consumptionRequested(ConsumptionRequest(
                transactionID: event.transactionID, environment: event.environment, requestedAtMs: event.occurredAtMs,
                reason: event.reason))
        }
    }

    /// A token that is not a UUID binds nothing (the store ignores it): said once per
    /// transaction of the notification, so the app's developer can find the bad purchases.
    private nonisolated func logMalformedTokens(in write: NotificationWrite) {
        for transaction in write.transactions {
            guard let token = transaction.appAccountToken, AppAccountToken.canonical(token) == nil else { continue }
            logger.warning("appAccountToken is not a UUID; the transaction binds to no account by it",
                           [("notification_id", write.sourceID), ("transaction_id", transaction.transactionID)])
        }
    }

    /// The body told apart as V1 or V2 in one JSON pass (``NotificationBody``).
    private nonisolated func decode(_ body: [UInt8]) throws(NotificationRejection) -> NotificationBody {
        do {
            return try NotificationBody.decode(body, receivedAtMs: now())
        } catch {
            throw NotificationRejection(.malformed, "not a V1 or V2 notification: \(error)")
        }
    }
}
