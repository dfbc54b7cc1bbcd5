import AppStore
import EntitlementPorts
import Entitlements
import Foundation
import JWS
import ServiceRuntime

/// Turns Apple's webhook posts (V1 JSON, V2 signed JWS) into store writes.
///
/// Validation and decoding happen here; the store commits (group commit) and the answer is
/// given only after that commit.
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

    /// The webhook answer: Apple retries anything but 200, so 4xx means "never valid",
    /// 5xx means "try again later".
    public struct Answer: Sendable, Equatable {
        public var status: Int
        public var notificationID: String
        public var reason: String
        var version = "unknown"
        var type = "unverified"
        var outcome = "rejected"
    }

    let configuration: Configuration
    let verifier: JWSVerifier
    let repository: any EntitlementRepository
    let logger: Logger
    let now: UnixClock
    let observe: NotificationObserver?

    /// Told about every webhook answer: `v1`/`v2`/`unknown`, Apple's notification type (only
    /// once authenticated, else `unverified`, so strangers cannot grow metric labels) and the
    /// outcome (`applied`, `orphan`, `duplicate`, `test`, `rejected`, `failed`).
    public typealias NotificationObserver = @Sendable (_ version: String, _ type: String, _ outcome: String) -> Void

    public init(configuration: Configuration, verifier: JWSVerifier, repository: any EntitlementRepository,
                logger: Logger, now: @escaping UnixClock, observe: NotificationObserver? = nil) {
        self.configuration = configuration
        self.verifier = verifier
        self.repository = repository
        self.logger = logger
        self.now = now
        self.observe = observe
    }

    /// Validates, decodes and durably applies one webhook body; logs the answer.
    public func ingest(_ body: [UInt8]) async -> Answer {
        let answer = await decideAnswer(body)
        observe?(answer.version, answer.type, answer.outcome)
        let level: Logger.Level = answer.status >= 500 ? .error : answer.status >= 400 ? .warning : .info
        logger.log(level, "apple notification", [("notification_id", answer.notificationID),
                                                  ("status", String(answer.status)), ("reason", answer.reason)])
        return answer
    }

    private func decideAnswer(_ body: [UInt8]) async -> Answer {
        guard body.count <= configuration.maxBodyBytes else {
            return Answer(status: 413, notificationID: "-", reason: "body over \(configuration.maxBodyBytes) bytes")
        }
        let bodyID = "v1:" + SHA256.hexHash(body)
        let write: NotificationWrite
        var type = "unverified"
        let signedPayload = NotificationIngestor.signedPayload(in: body)
        let version = signedPayload == nil ? "v1" : "v2"
        do {
            if let signedPayload {
                guard let decoded = try verifyV2(signedPayload) else {
                    return Answer(status: 200, notificationID: "test", reason: "TEST notification: nothing stored",
                                  version: "v2", type: "TEST", outcome: "test")
                }
                write = decoded.write
                type = decoded.type
            } else {
                let decoded = try decodeV1(body, sourceID: bodyID)
                write = decoded.write
                type = decoded.type
            }
        } catch let rejection as Rejection {
            return Answer(status: rejection.status, notificationID: rejection.notificationID ?? bodyID, reason: rejection.reason,
                          version: version)
        } catch {
            return Answer(status: 400, notificationID: bodyID, reason: "unreadable notification: \(error)", version: version)
        }
        do {
            let outcome = try await repository.apply(write)
            let reason = outcome.duplicate ? "duplicate: already applied"
                : outcome.ownerUserIDs.isEmpty ? "applied; no user owns the chain yet (kept until a receipt binds it)"
                : "applied for \(outcome.ownerUserIDs.count) user(s), \(outcome.newTransactions) new transaction(s)"
            let label = outcome.duplicate ? "duplicate" : outcome.ownerUserIDs.isEmpty ? "orphan" : "applied"
            return Answer(status: 200, notificationID: write.sourceID, reason: reason, version: version, type: type, outcome: label)
        } catch let error as StoreError where error.code == .invalidWrite {
            return Answer(status: 400, notificationID: write.sourceID, reason: "notification cannot be stored: \(error)",
                          version: version, type: type)
        } catch {
            // 503: the store cannot write now (disk full, I/O error, shutting down); Apple
            // retries. The cause (SQL, paths) goes to the log only, never into the answer.
            logger.log(.error, "storing a notification failed", [("notification_id", write.sourceID), ("error", "\(error)")])
            let unavailable = (error as? StoreError).map { $0.code == .storageFailure || $0.code == .closed } ?? false
            return Answer(status: unavailable ? 503 : 500, notificationID: write.sourceID,
                          reason: "storage is unavailable; Apple will retry", version: version, type: type, outcome: "failed")
        }
    }

    /// The `signedPayload` of a V2 body, or nil when the body is not V2 (then it is tried as V1).
    static func signedPayload(in body: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object["signedPayload"] as? String
    }
}

/// Why a notification is refused; carries the HTTP status Apple will see.
struct Rejection: Error {
    var status: Int
    var reason: String
    var notificationID: String?
}
