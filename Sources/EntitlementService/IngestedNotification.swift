/// What became of one webhook body, in the service's words.
///
/// The webhook edge (``NotificationWebhook``) turns it into the HTTP answer Apple sees and the
/// metric labels; nothing here knows about HTTP.
public struct IngestedNotification: Sendable, Equatable {
    public enum Version: String, Sendable, Equatable {
        case v1, v2
        /// The body was refused before its version was looked at (too large).
        case unknown
    }

    public var version: Version
    /// Apple's raw `notificationType`; nil until the notification is authenticated and decoded,
    /// so strangers cannot name types (they become metric labels).
    public var notificationType: String?
    /// The idempotency key (`v1:<body hash>`, `v2:<notificationUUID>`), `test` for TEST, `-`
    /// when the body was never read.
    public var notificationID: String
    public var disposition: NotificationDisposition

    public init(version: Version, notificationType: String? = nil, notificationID: String,
                disposition: NotificationDisposition) {
        self.version = version
        self.notificationType = notificationType
        self.notificationID = notificationID
        self.disposition = disposition
    }
}

/// The ingestor's decision about one notification. Apple redelivers anything not accepted, so
/// the cases split into "stop sending" (stored, duplicate, test, never valid) and "send again".
public enum NotificationDisposition: Sendable, Equatable {
    /// Stored for the users owning its chains.
    case accepted(owners: Int, newTransactions: Int)
    /// Stored, but no user owns the chain yet: kept until a receipt binds it.
    case orphaned
    /// Applied before (same idempotency key): nothing changed.
    case duplicate
    /// Apple's TEST notification: authenticated, nothing to store.
    case test
    /// Never valid: redelivering the same body cannot help.
    case rejected(NotificationRejection)
    /// Valid, but the store cannot take it now (disk full, I/O error, shutting down).
    case retryLater
    /// Valid, but storing it failed for a reason the store did not classify.
    case failed

    /// One line for the log: what happened, with the reason of a refusal.
    public var summary: String {
        switch self {
        case .accepted(let owners, let newTransactions):
            return "applied for \(owners) user(s), \(newTransactions) new transaction(s)"
        case .orphaned: return "applied; no user owns the chain yet (kept until a receipt binds it)"
        case .duplicate: return "duplicate: already applied"
        case .test: return "TEST notification: nothing stored"
        case .rejected(let rejection): return rejection.message
        case .retryLater, .failed: return "storage is unavailable; Apple will retry"
        }
    }
}

/// Why a notification is refused for good, and a message safe to send back to its poster.
public struct NotificationRejection: Error, Sendable, Equatable {
    public enum Reason: Sendable, Equatable, CaseIterable {
        /// Over the configured body limit.
        case tooLarge
        /// Not JSON, not a V1 notification, or a V2 token or payload that is not what Apple sends.
        case malformed
        /// A V1 password that does not match the shared secret (or no secret configured), or a
        /// V2 signature or certificate chain that does not verify.
        case unauthenticated
        /// Authentic, but for another app than `--bundle-id`.
        case otherBundle
        /// Decoded, but the store refused it as inconsistent.
        case unstorable
    }

    public var reason: Reason
    public var message: String
    /// The notification's idempotency key when it was read that far.
    var notificationID: String?

    public init(_ reason: Reason, _ message: String, notificationID: String? = nil) {
        self.reason = reason
        self.message = message
        self.notificationID = notificationID
    }
}
