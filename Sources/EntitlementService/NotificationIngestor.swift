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
/// A final class, not an actor: it has no mutable state, and ES256 and X.509 checks are
/// CPU-bound and independent, so concurrent notifications must verify in parallel on the
/// cooperative pool instead of queueing on one actor executor.
public final class NotificationIngestor: Sendable {
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

    let configuration: Configuration
    let verifier: JWSVerifier
    let repository: any EntitlementRepository
    let logger: Logger
    let now: UnixClock
    let observeOwnership: OwnershipObserver?
    /// Told of each CONSUMPTION_REQUEST once its notification is stored (a redelivery too, so a
    /// request whose recording failed is recorded when Apple retries); it must be durable when
    /// it returns, or throw (Apple is then asked to retry).
    let consumptionRequested: (@Sendable (ConsumptionRequest) async throws -> Void)?
    /// Where verified TEST notifications are recorded, for the operator's end-to-end check.
    let testNotifications: TestNotifications?

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
    public func ingest(_ body: [UInt8]) async -> IngestedNotification {
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
        do {
            let outcome = try await repository.apply(write)
            try await recordConsumptionRequests(in: write)
            if outcome.ownershipTransfers > 0 { observeOwnership?(.transferred(count: outcome.ownershipTransfers)) }
            if outcome.duplicate { return result(.duplicate) }
            if outcome.ownerUserIDs.isEmpty { return result(.orphaned) }
            return result(.accepted(owners: outcome.ownerUserIDs.count, newTransactions: outcome.newTransactions))
        } catch let error as StoreError where error.code == .invalidWrite {
            return result(.rejected(NotificationRejection(.unstorable, "notification cannot be stored: \(error)",
                                                          notificationID: write.sourceID)))
        } catch {
            // The store cannot write now (disk full, I/O error, shutting down): Apple retries.
            // The cause (SQL, paths) goes to the log only, never into the answer.
            logger.log(.error, "storing a notification failed",
                       [("notification_id", write.sourceID), ("error", "\(error)")])
            let unavailable = (error as? StoreError).map { $0.code == .storageFailure || $0.code == .closed } ?? false
            return result(unavailable ? .retryLater : .failed)
        }
    }

    /// Hands each consumption request of `write` to ``consumptionRequested``: Apple's 12 hours
    /// count from the event's time (V2 signedDate), its reason is Apple's.
    private func recordConsumptionRequests(in write: NotificationWrite) async throws {
        guard let consumptionRequested else { return }
        for event in write.events where event.kind == .consumptionRequest && !event.transactionID.isEmpty {
            try await consumptionRequested(ConsumptionRequest(
                transactionID: event.transactionID, environment: event.environment, requestedAtMs: event.occurredAtMs,
                reason: event.reason))
        }
    }

    /// A token that is not a UUID binds nothing (the store ignores it): said once per
    /// transaction of the notification, so the app's developer can find the bad purchases.
    private func logMalformedTokens(in write: NotificationWrite) {
        for transaction in write.transactions {
            guard let token = transaction.appAccountToken, AppAccountToken.canonical(token) == nil else { continue }
            logger.warning("appAccountToken is not a UUID; the transaction binds to no account by it",
                           [("notification_id", write.sourceID), ("transaction_id", transaction.transactionID)])
        }
    }

    /// The body told apart as V1 or V2 in one JSON pass (``NotificationBody``).
    private func decode(_ body: [UInt8]) throws(NotificationRejection) -> NotificationBody {
        do {
            return try NotificationBody.decode(body, receivedAtMs: now())
        } catch {
            throw NotificationRejection(.malformed, "not a V1 or V2 notification: \(error)")
        }
    }
}
