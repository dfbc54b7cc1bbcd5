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
    /// notification is not an upgrade to `newPlan`.
    ///
    /// The notification carries the new plan, but the upgrade is recorded against the plan it
    /// replaced ("product_change:<replaced transaction_id>"): that is what a receipt or a V1
    /// CANCEL reports (the replaced plan's `is_upgraded` and cancellation date), so all of them
    /// name one event whichever arrives first. The replaced plan is the latest transaction of
    /// `chain` (the stored facts of the chain) bought before the new plan, not refunded and
    /// still running when the new plan was bought (upgrades take effect at once). Dated at the
    /// replaced plan's cancellation when it is known, else at the new plan's purchase.
    ///
    /// When no such plan is known (the upgrade is the first the service hears of the chain),
    /// it is recorded against the new plan ("product_change:to:<new transaction_id>"), and the
    /// replaced plan's upgrade reported later joins it
    /// (``joiningNewPlanUpgrade(events:confirmation:of:chain:isRecorded:)``).
    public static func upgrade(
        to newPlan: Transaction, chain: [Transaction], source: HistoryEvent.Source,
        notification: NotificationReport
    ) -> (event: HistoryEvent, confirmation: HistoryConfirmation)? {
        guard notification.happening(to: newPlan.transactionID) == .upgrade else { return nil }
        let type = notification.appleNotificationType
        let candidates = chain.filter {
            $0.transactionID != newPlan.transactionID && $0.purchaseDateMs < newPlan.purchaseDateMs
                && !$0.isRefunded && ($0.expiresDateMs ?? .max) > newPlan.purchaseDateMs
        }
        guard let replaced = candidates.max(by: { isPurchased($0, before: $1) }) else {
            let id = newPlanUpgradeID(newPlan.transactionID)
            let event = event(.productChange, at: newPlan.purchaseDateMs, for: newPlan, source: source,
                              type: type, id: id)
            return (event, HistoryConfirmation(eventIDs: [id], appleNotificationType: type))
        }
        let upgradedAt = replaced.isUpgraded ? replaced.cancellationDateMs ?? newPlan.purchaseDateMs
            : newPlan.purchaseDateMs
        let event = event(.productChange, at: upgradedAt, for: replaced, source: source, type: type,
                          id: upgradeID(replaced.transactionID))
        return (event, upgradeConfirmation(of: replaced, type: type))
    }

    /// The events and confirmation of an upgraded plan (`replaced`, from a receipt or a V1
    /// CANCEL), given the chain's stored transactions: unchanged, unless a V2 upgrade
    /// notification recorded this upgrade against the new plan before the replaced one was
    /// known (`isRecorded` says whether an event id is stored). Then that event is the upgrade:
    /// the replaced plan adds no second one, and a notification reporting it names that event.
    ///
    /// The new plan is the one bought next in the chain after the replaced plan.
    public static func joiningNewPlanUpgrade(
        events: [HistoryEvent], confirmation: HistoryConfirmation?, of replaced: Transaction,
        chain: [Transaction], isRecorded: (String) throws -> Bool
    ) rethrows -> (events: [HistoryEvent], confirmation: HistoryConfirmation?) {
        let own = upgradeID(replaced.transactionID)
        let derived = events.first { $0.eventID == own }
        guard replaced.isUpgraded, derived != nil || confirmation?.eventIDs == [own],
              let newPlan = chain.filter({
                  $0.transactionID != replaced.transactionID && $0.purchaseDateMs > replaced.purchaseDateMs
              }).min(by: { isPurchased($0, before: $1) }),
              try isRecorded(newPlanUpgradeID(newPlan.transactionID))
        else { return (events, confirmation) }
        let joined = newPlanUpgradeID(newPlan.transactionID)
        var confirmation = confirmation
        if confirmation?.eventIDs == [own] { confirmation?.eventIDs = [joined] }
        if let type = derived?.appleNotificationType, !type.isEmpty {
            confirmation = HistoryConfirmation(eventIDs: [joined], appleNotificationType: type)
        }
        return (events.filter { $0.eventID != own }, confirmation)
    }

    /// One upgrade, one id, whoever reports it.
    static func upgradeID(_ transactionID: String) -> String { "product_change:\(transactionID)" }

    /// An upgrade recorded from the new plan alone (see ``upgrade(to:chain:source:notification:)``);
    /// distinct from the new plan's own upgrade later, which is "product_change:<its id>".
    static func newPlanUpgradeID(_ transactionID: String) -> String { "product_change:to:\(transactionID)" }

    /// Names the upgrade's PRODUCT_CHANGE. A REFUND that an older version recorded for an
    /// upgrade stays as it was: history already stored is never rewritten.
    static func upgradeConfirmation(of replaced: Transaction, type: String) -> HistoryConfirmation {
        HistoryConfirmation(eventIDs: [upgradeID(replaced.transactionID)], appleNotificationType: type)
    }

    /// Purchase order within a chain: by purchase date, then by id.
    private static func isPurchased(_ a: Transaction, before b: Transaction) -> Bool {
        if a.purchaseDateMs != b.purchaseDateMs { return a.purchaseDateMs < b.purchaseDateMs }
        return Transaction.id(a.transactionID, precedes: b.transactionID)
    }
}

extension Transaction {
    /// Shared by the family organizer (StoreKit `inAppOwnershipType` FAMILY_SHARED): this
    /// customer did not pay for it.
    public var isFamilyShared: Bool { inAppOwnershipType == "FAMILY_SHARED" }
}
