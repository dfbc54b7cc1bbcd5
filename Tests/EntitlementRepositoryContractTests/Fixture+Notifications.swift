import EntitlementPorts
import Entitlements
import TestSupport

/// Notification test facts beyond the shared ones: the events a caller derives, renewal infos, states.
extension Fixture {
    /// The event a caller records for a notification, with the notification's id as its own.
    static func event(
        _ id: String, _ kind: HistoryEvent.Kind, chain: String, at occurredAtMs: Int64,
        type: String = "DID_CHANGE_RENEWAL_STATUS"
    ) -> HistoryEvent {
        HistoryEvent(eventID: id, kind: kind, occurredAtMs: occurredAtMs,
                     productID: "com.example.monthly", transactionID: chain,
                     originalTransactionID: chain, environment: .sandbox, source: .notificationV2,
                     appleNotificationType: type)
    }

    static func renewal(chain: String, signedAt: Int64, autoRenew: Bool = true,
                        billingRetry: Bool = false) -> RenewalInfo {
        RenewalInfo(originalTransactionID: chain, autoRenewStatus: autoRenew,
                    isInBillingRetryPeriod: billingRetry, signedDateMs: signedAt)
    }

    /// The state of `chain` for `facts` at `t`, by the real rules (no catalog).
    static func state(of chain: String, in facts: UserFacts, at t: Int64) -> EntitlementState? {
        EntitlementRules.entitlements(for: facts, at: .at(t), catalog: .empty)
            .first { $0.originalTransactionID == chain }?.state
    }
}
