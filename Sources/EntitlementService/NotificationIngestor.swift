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
/// An actor because it owns its part's state: the reconciliation run feeding it, at most one at
/// a time (``reconciliationRun(_:sinceMs:)``). Ingesting takes nothing from that state, so
/// ``ingest(_:)`` is nonisolated and never enters the actor: ES256 and X.509 checks are
/// CPU-bound and independent, and concurrent notifications must verify in parallel across
/// cores instead of queueing on one executor. The same notification arriving twice at once is
/// applied once by the store (its processed sources, in the write's transaction), which also
/// covers other replicas; an in-flight table here would cost two actor hops per notification
/// and spare only the second arrival's write attempt.
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

    /// Whether a reconciliation run is feeding this ingestor now.
    private var reconciling = false

    public init(configuration: Configuration, verifier: JWSVerifier, repository: any EntitlementRepository,
                logger: Logger, now: @escaping UnixClock, observeOwnership: OwnershipObserver? = nil) {
        self.observeOwnership = observeOwnership
        self.configuration = configuration
        self.verifier = verifier
        self.repository = repository
        self.logger = logger
        self.now = now
    }

    /// Validates, decodes and durably applies one webhook body.
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
        do {
            let outcome = try await repository.apply(write)
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

    /// Runs `reconciler`'s pass over Apple's notification history unless one is running already:
    /// every run feeds this ingestor, so it is the one place that knows. The run itself, pages
    /// and ingests, happens outside the actor's isolation; the actor is free meanwhile.
    func reconciliationRun(_ reconciler: NotificationReconciler, sinceMs: Int64?)
        async throws(ReconciliationError) -> ReconciliationReport {
        guard !reconciling else { throw .alreadyRunning }
        reconciling = true
        defer { reconciling = false }
        return await reconciler.run(sinceMs: sinceMs)
    }
}
