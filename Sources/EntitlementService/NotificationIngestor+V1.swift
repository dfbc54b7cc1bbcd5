import AppStore
import EntitlementPorts
import Entitlements
import JWS

extension NotificationIngestor {
    /// V1: authenticated only by the shared secret in `password`; idempotent by body hash.
    nonisolated func authenticateV1(_ notification: NotificationV1, sourceID: String)
        throws(NotificationRejection) -> (write: NotificationWrite, type: String) {
        // An empty secret would match a notification without a password: treated as none.
        guard let secret = configuration.sharedSecret, !secret.isEmpty else {
            throw NotificationRejection(.unauthenticated,
                                        "V1 notifications need --apple-shared-secret to be authenticated",
                                        notificationID: sourceID)
        }
        guard constantTimeEquals(notification.password ?? "", secret) else {
            throw NotificationRejection(.unauthenticated, "password does not match the shared secret",
                                        notificationID: sourceID)
        }
        if let expected = configuration.bundleID, notification.bundleID != expected {
            throw NotificationRejection(.otherBundle,
                                        "bid '\(notification.bundleID ?? "")' is not this service's bundle",
                                        notificationID: sourceID)
        }
        var events: [HistoryEvent] = []
        let kind = notification.eventKind
        let report = notification.historyReport
        if let subject = notification.subjectTransaction, NotificationIngestor.isNotificationEvent(kind, report) {
            events.append(HistoryEvent(
                eventID: sourceID, kind: kind, occurredAtMs: now(), productID: subject.productID,
                transactionID: subject.transactionID, originalTransactionID: subject.originalTransactionID,
                expiresAtMs: subject.expiresDateMs ?? 0, environment: notification.environment,
                source: .notificationV1, appleNotificationType: notification.notificationType))
        }
        let write = NotificationWrite(source: .notificationV1, sourceID: sourceID, signedDateMs: now(),
                                      transactions: notification.transactions, renewalInfos: notification.renewalInfos,
                                      events: events, reversedRefunds: [], report: report)
        return (write, notification.notificationType)
    }

    /// Purchases, renewals, refunds, revocations and upgrades are derived by the store from
    /// transaction facts, so the same fact reported by a receipt and a notification is one
    /// event, not two (the notification's ``NotificationReport`` names it). Every other kind
    /// exists only because a notification said so (a downgrade, which changes no transaction
    /// until the next renewal, is one).
    static func isNotificationEvent(_ kind: HistoryEvent.Kind, _ report: NotificationReport) -> Bool {
        switch kind {
        case .purchase, .renewal, .refund, .revoke: return false
        case .productChange: return report.happening == nil
        default: return true
        }
    }
}
