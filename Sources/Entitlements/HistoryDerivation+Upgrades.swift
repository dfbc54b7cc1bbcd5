/// What a cancellation date means in history: an upgrade, a Family Sharing revocation or a
/// refund, decided from the transaction so every reporter (receipt, V1, V2) agrees.
extension HistoryDerivation {
    /// The kind of the event a transaction's cancellation date records.
    ///
    /// - Upgraded (`is_upgraded` / `isUpgraded`): Apple dates the upgrade in the old plan's
    ///   cancellation; the customer paid more, so it is a PRODUCT_CHANGE, never a REFUND (the
    ///   rules agree: ``Transaction/isRefunded``).
    /// - Family shared (`in_app_ownership_type` FAMILY_SHARED), or a REVOKE notification's
    ///   subject: a REVOKE. A family member did not pay, so nothing was refunded to them:
    ///   Apple revokes their access when the purchaser stops sharing, leaves the family or is
    ///   refunded. A receipt alone says so through the ownership type, so it names the same
    ///   event the REVOKE notification does, in either arrival order.
    /// - Otherwise a REFUND.
    public static func cancellationKind(
        of transaction: Transaction, notification: NotificationReport?
    ) -> HistoryEvent.Kind {
        if transaction.isUpgraded { return .productChange }
        if transaction.isFamilyShared || notification?.happening(to: transaction.transactionID) == .revoke {
            return .revoke
        }
        return .refund
    }

    /// The PRODUCT_CHANGE a V2 upgrade notification (DID_CHANGE_RENEWAL_PREF/UPGRADE) reports,
    /// and the confirmation that names it if it is already recorded; `nil` when the
    /// notification is not an upgrade to `newPlan` or `chain` holds no plan it replaced.
    ///
    /// The notification carries the new plan, but the upgrade is recorded against the plan it
    /// replaced ("product_change:<replaced transaction_id>"): that is what a receipt or a V1
    /// CANCEL reports (the replaced plan's `is_upgraded` and cancellation date), so all of them
    /// name one event whichever arrives first. The replaced plan is the newest transaction of
    /// `chain` (the stored facts of the chain) purchased before the new plan and not refunded.
    /// Dated at the replaced plan's cancellation when it is known, else at the new plan's
    /// purchase (the moment the upgrade took effect).
    public static func upgrade(
        to newPlan: Transaction, chain: [Transaction], source: HistoryEvent.Source,
        notification: NotificationReport
    ) -> (event: HistoryEvent, confirmation: HistoryConfirmation)? {
        guard notification.happening(to: newPlan.transactionID) == .upgrade else { return nil }
        let candidates = chain.filter {
            $0.transactionID != newPlan.transactionID && $0.purchaseDateMs < newPlan.purchaseDateMs
                && !$0.isRefunded
        }
        guard let replaced = candidates.max(by: { $0.isOrdered(before: $1) }) else { return nil }
        let upgradedAt = replaced.isUpgraded ? replaced.cancellationDateMs ?? newPlan.purchaseDateMs
            : newPlan.purchaseDateMs
        let type = notification.appleNotificationType
        let event = event(.productChange, at: upgradedAt, for: replaced, source: source, type: type,
                          id: upgradeID(replaced.transactionID))
        return (event, upgradeConfirmation(of: replaced, type: type))
    }

    /// One upgrade, one id, whoever reports it.
    static func upgradeID(_ transactionID: String) -> String { "product_change:\(transactionID)" }

    /// Names the upgrade's PRODUCT_CHANGE. A REFUND that an older version recorded for an
    /// upgrade stays as it was: history already stored is never rewritten.
    static func upgradeConfirmation(of replaced: Transaction, type: String) -> HistoryConfirmation {
        HistoryConfirmation(eventIDs: [upgradeID(replaced.transactionID)], appleNotificationType: type)
    }
}

extension Transaction {
    /// Shared by the family organizer (StoreKit `inAppOwnershipType` FAMILY_SHARED): this
    /// customer did not pay for it.
    public var isFamilyShared: Bool { inAppOwnershipType == "FAMILY_SHARED" }
}
