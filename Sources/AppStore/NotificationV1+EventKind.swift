import Entitlements

extension NotificationV1 {
    /// The history event this notification records: the pure mapping below, fed with this
    /// notification's own facts (top-level fields first, then its chain's transaction and
    /// renewal info).
    public var eventKind: HistoryEvent.Kind {
        let chainRenewal = chainRenewalInfo
        return Self.eventKind(
            notificationType: notificationType,
            autoRenewStatus: autoRenewStatus ?? chainRenewal?.autoRenewStatus,
            cancellationDateMs: cancellationDateMs ?? subjectTransaction?.cancellationDateMs,
            subjectIsUpgraded: subjectTransaction?.isUpgraded ?? false,
            opensGracePeriod: chainRenewal?.gracePeriodExpiresDateMs != nil)
    }

    /// How history names this notification and what it says happened to its subject: a
    /// CANCEL's product change is the upgrade of its (upgraded) subject, recorded from that
    /// transaction's cancellation as a receipt would; DID_CHANGE_RENEWAL_PREF's is its own event.
    ///
    /// INTERACTIVE_RENEWAL after an upgrade (the plan bought just before the subject is
    /// `is_upgraded`) reports the upgrade as V2's DID_CHANGE_RENEWAL_PREF/UPGRADE does: the
    /// subject's own period and the replaced plan's PRODUCT_CHANGE both carry its type, even
    /// when a receipt recorded them first. Otherwise it is a renewal (a resubscription).
    public var historyReport: NotificationReport {
        if notificationType == "INTERACTIVE_RENEWAL", let subject = subjectTransaction, upgradeReplaced(by: subject) {
            return NotificationReport(appleNotificationType: notificationType,
                                      subjectTransactionID: subject.transactionID, kind: .productChange,
                                      productChange: .upgrade)
        }
        return NotificationReport(appleNotificationType: notificationType,
                                  subjectTransactionID: subjectTransaction?.transactionID, kind: eventKind,
                                  productChange: notificationType == "CANCEL" ? .upgraded : nil)
    }

    /// Whether the plan of `subject`'s chain bought last before it was replaced by an upgrade.
    private func upgradeReplaced(by subject: Transaction) -> Bool {
        transactions.filter {
            $0.originalTransactionID == subject.originalTransactionID && $0.transactionID != subject.transactionID
                && $0.purchaseDateMs <= subject.purchaseDateMs
        }.max { $0.purchaseDateMs < $1.purchaseDateMs }?.isUpgraded ?? false
    }

    /// The transaction the event refers to.
    ///
    /// Among the transactions of the notification's chain (`original_transaction_id`; every
    /// transaction when it is absent), the newest by expiry, then purchase date, then id,
    /// never by array position. For CANCEL, REFUND and REVOKE the newest one carrying a
    /// `cancellation_date_ms` is preferred: the refunded period need not be the newest one. For
    /// every other type the newest one without it is.
    public var subjectTransaction: Transaction? {
        let chain = transactions.filter {
            originalTransactionID == nil || $0.originalTransactionID == originalTransactionID
        }
        let newest = { (candidates: [Transaction]) in
            candidates.max { $0.isOrdered(before: $1) }
        }
        if ["CANCEL", "REFUND", "REVOKE"].contains(notificationType),
           let cancelled = newest(chain.filter { $0.cancellationDateMs != nil }) {
            return cancelled
        }
        // Every other type is about the period running now: a transaction cancelled by an
        // upgrade (or refunded) is not it, though a yearly plan upgraded to a monthly one still
        // expires last.
        return newest(chain.filter { $0.cancellationDateMs == nil }) ?? newest(chain)
    }

    /// The renewal info of the subject's chain.
    var chainRenewalInfo: RenewalInfo? {
        guard let chainID = originalTransactionID ?? subjectTransaction?.originalTransactionID
        else { return nil }
        return renewalInfos.first { $0.originalTransactionID == chainID }
    }

    /// Maps a V1 `notification_type` to the event it records; `.other` (raw name kept by the
    /// caller in `apple_notification_type`) for every type without a meaning of its own.
    ///
    /// - CANCEL is a refund only with a cancellation date; Apple also sends it for an upgrade
    ///   within the subscription group (the cancelled transaction `is_upgraded`), which is a
    ///   product change, not a refund.
    /// - DID_FAIL_TO_RENEW is GRACE_PERIOD when the chain's renewal info carries
    ///   `grace_period_expires_date_ms` (decided by presence, not by the clock, so a
    ///   redelivered notification maps the same way).
    /// - DID_CHANGE_RENEWAL_STATUS without a readable status is `.other`.
    public static func eventKind(
        notificationType: String, autoRenewStatus: Bool?, cancellationDateMs: Int64?,
        subjectIsUpgraded: Bool, opensGracePeriod: Bool
    ) -> HistoryEvent.Kind {
        switch notificationType {
        case "INITIAL_BUY": return .purchase
        case "DID_RENEW", "INTERACTIVE_RENEWAL": return .renewal
        case "DID_RECOVER", "RENEWAL": return .billingRecovered
        case "DID_FAIL_TO_RENEW": return opensGracePeriod ? .gracePeriod : .billingRetry
        case "CANCEL":
            guard cancellationDateMs != nil else { return .other }
            return subjectIsUpgraded ? .productChange : .refund
        case "REFUND": return .refund
        case "REVOKE": return .revoke
        case "DID_CHANGE_RENEWAL_STATUS":
            switch autoRenewStatus {
            case true?: return .autoRenewEnabled
            case false?: return .autoRenewDisabled
            case nil: return .other
            }
        case "DID_CHANGE_RENEWAL_PREF": return .productChange
        case "CONSUMPTION_REQUEST": return .consumptionRequest
        default: return .other
        }
    }
}
