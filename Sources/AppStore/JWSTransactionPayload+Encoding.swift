import Entitlements

extension JWSTransactionPayload {
    /// A StoreKit 2 payload for a domain transaction, signed (by the caller) at `signedDateMs`.
    ///
    /// The fields the domain model does not keep are derived the way Apple fills them:
    /// `type` from ``Transaction/declaredProductType``; an introductory offer (`offerType` 1)
    /// from the trial and intro flags, FREE_TRIAL for a trial and PAY_AS_YOU_GO otherwise;
    /// `transactionReason` PURCHASE for a chain's first transaction, RENEWAL after it.
    public init(
        transaction: Transaction, bundleID: String?, signedDateMs: Int64, revocationReason: Int? = nil
    ) {
        let hasIntroOffer = transaction.isTrialPeriod || transaction.isInIntroOfferPeriod
        self.init(
            transactionID: transaction.transactionID,
            originalTransactionID: transaction.originalTransactionID,
            webOrderLineItemID: transaction.webOrderLineItemID,
            bundleID: bundleID,
            productID: transaction.productID,
            subscriptionGroupIdentifier: transaction.subscriptionGroupIdentifier,
            purchaseDateMs: transaction.purchaseDateMs,
            originalPurchaseDateMs: transaction.originalPurchaseDateMs,
            expiresDateMs: transaction.expiresDateMs,
            revocationDateMs: transaction.isUpgraded ? nil : transaction.cancellationDateMs,
            revocationReason: transaction.cancellationDateMs == nil || transaction.isUpgraded
                ? nil : (revocationReason ?? 0),
            isUpgraded: transaction.isUpgraded,
            offerType: hasIntroOffer ? 1 : nil,
            offerDiscountType: hasIntroOffer ? (transaction.isTrialPeriod ? "FREE_TRIAL" : "PAY_AS_YOU_GO") : nil,
            appAccountToken: transaction.appAccountToken,
            inAppOwnershipType: transaction.inAppOwnershipType ?? "PURCHASED",
            type: transaction.declaredProductType.map(Self.appleTypeName),
            quantity: 1,
            transactionReason: transaction.transactionID == transaction.originalTransactionID ? "PURCHASE" : "RENEWAL",
            environment: transaction.environment,
            signedDateMs: signedDateMs)
    }

    /// Apple's `type` text for a product type; the inverse of ``declaredProductType``.
    public static func appleTypeName(_ type: ProductType) -> String {
        switch type {
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonRenewing: "Non-Renewing Subscription"
        case .nonConsumable: "Non-Consumable"
        case .consumable: "Consumable"
        // Grants have no Apple transaction; Apple has no such type.
        case .promotional: ""
        }
    }

    /// The payload JSON Apple signs, what ``parse(_:)`` reads back: dates integer
    /// milliseconds, ids strings, booleans real, as StoreKit 2 writes them.
    public func jsonBody() -> [UInt8] {
        var root = AppleJSONWriter()
        root.string("transactionId", transactionID)
        root.string("originalTransactionId", originalTransactionID)
        root.string("webOrderLineItemId", webOrderLineItemID)
        root.string("bundleId", bundleID)
        root.string("productId", productID)
        root.string("subscriptionGroupIdentifier", subscriptionGroupIdentifier)
        root.number("purchaseDate", purchaseDateMs)
        root.number("originalPurchaseDate", originalPurchaseDateMs)
        root.number("expiresDate", expiresDateMs)
        root.number("quantity", quantity)
        root.string("type", type)
        root.string("appAccountToken", appAccountToken)
        root.string("inAppOwnershipType", inAppOwnershipType)
        root.number("signedDate", signedDateMs)
        root.number("revocationReason", revocationReason)
        root.number("revocationDate", revocationDateMs)
        if isUpgraded { root.bool("isUpgraded", true) }
        root.number("offerType", offerType)
        root.string("offerDiscountType", offerDiscountType)
        root.string("environment", environment.appleName)
        root.string("transactionReason", transactionReason)
        root.number("price", price)
        root.string("currency", currency)
        return root.bytes
    }
}
