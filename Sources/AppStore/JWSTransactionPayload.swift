import Entitlements

/// The decoded payload of a StoreKit 2 / V2 signed transaction (`signedTransactionInfo`).
///
/// Decoding only: the JWS module has already verified the signature and hands over the
/// payload's bytes. Fields mirror Apple's names; ``transaction`` maps them onto the domain.
public struct JWSTransactionPayload: Sendable, Hashable {
    public var transactionID: String
    public var originalTransactionID: String
    public var webOrderLineItemID: String?
    public var bundleID: String?
    public var productID: String
    public var subscriptionGroupIdentifier: String?
    public var purchaseDateMs: Int64
    public var originalPurchaseDateMs: Int64?
    public var expiresDateMs: Int64?
    public var revocationDateMs: Int64?
    public var revocationReason: Int?
    public var isUpgraded: Bool
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int?
    /// "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT" (sent since 2024).
    public var offerDiscountType: String?
    public var appAccountToken: String?
    public var inAppOwnershipType: String?
    /// Apple's raw `type` ("Auto-Renewable Subscription", …); see ``declaredProductType``.
    public var type: String?
    public var quantity: Int?
    public var transactionReason: String?
    public var environment: Environment
    public var signedDateMs: Int64
    /// Apple's `price` in milli-units of ``currency`` (sent since 2023; 0 for a free trial).
    public var price: Int64? = nil
    /// ISO 4217 code of ``price``.
    public var currency: String? = nil

    /// Decodes the payload JSON (the JWS's middle segment, base64url-decoded).
    public static func parse(_ payload: [UInt8]) throws(AppStoreFormatError) -> JWSTransactionPayload {
        let root = try AppleJSONObject.parse(payload)
        let environment = try root.requiredEnvironment("environment")
        return JWSTransactionPayload(
            transactionID: try root.requiredString("transactionId"),
            originalTransactionID: try root.requiredString("originalTransactionId"),
            webOrderLineItemID: try root.string("webOrderLineItemId"),
            bundleID: try root.string("bundleId"),
            productID: try root.requiredString("productId"),
            subscriptionGroupIdentifier: try root.string("subscriptionGroupIdentifier"),
            purchaseDateMs: try root.requiredInt64("purchaseDate"),
            originalPurchaseDateMs: try root.int64("originalPurchaseDate"),
            expiresDateMs: try root.int64("expiresDate"),
            revocationDateMs: try root.int64("revocationDate"),
            revocationReason: try root.int("revocationReason"),
            isUpgraded: try root.bool("isUpgraded") ?? false,
            offerType: try root.int("offerType"),
            offerDiscountType: try root.string("offerDiscountType"),
            appAccountToken: try root.string("appAccountToken"),
            inAppOwnershipType: try root.string("inAppOwnershipType"),
            type: try root.string("type"),
            quantity: try root.int("quantity"),
            transactionReason: try root.string("transactionReason"),
            environment: environment,
            signedDateMs: try root.requiredInt64("signedDate"),
            price: try root.int64("price"),
            currency: try root.string("currency"))
    }

    /// What the customer paid, when Apple said both the price and its currency.
    public var transactionPrice: TransactionPrice? {
        guard let price, let currency, !currency.isEmpty else { return nil }
        return TransactionPrice(transactionID: transactionID, milliUnits: price, currency: currency)
    }

    /// Apple's `type` as the domain's product type; `nil` for a type Apple adds later.
    public var declaredProductType: ProductType? {
        switch type {
        case "Auto-Renewable Subscription": return .autoRenewable
        case "Non-Renewing Subscription": return .nonRenewing
        case "Non-Consumable": return .nonConsumable
        case "Consumable": return .consumable
        default: return nil
        }
    }

    /// The domain transaction.
    ///
    /// StoreKit 2 has no `is_trial_period`: an introductory offer (`offerType` 1) sets
    /// `isInIntroOfferPeriod`, and when its `offerDiscountType` is FREE_TRIAL it also sets
    /// `isTrialPeriod`. Both flags mean "this customer has used the introductory offer" to
    /// the rules, so setting both for a free trial errs towards not granting a second one.
    /// `revocationDate` is the domain's cancellation: refunds and family-sharing revocations
    /// alike mean the transaction never granted access.
    public var transaction: Transaction {
        let isIntroOffer = offerType == 1
        return Transaction(
            transactionID: transactionID,
            originalTransactionID: originalTransactionID,
            productID: productID,
            purchaseDateMs: purchaseDateMs,
            originalPurchaseDateMs: originalPurchaseDateMs,
            expiresDateMs: expiresDateMs,
            cancellationDateMs: revocationDateMs,
            isTrialPeriod: isIntroOffer && offerDiscountType == "FREE_TRIAL",
            isInIntroOfferPeriod: isIntroOffer,
            isUpgraded: isUpgraded,
            subscriptionGroupIdentifier: subscriptionGroupIdentifier,
            webOrderLineItemID: webOrderLineItemID,
            inAppOwnershipType: inAppOwnershipType,
            appAccountToken: appAccountToken,
            environment: environment,
            declaredProductType: declaredProductType)
    }

    /// Fuzzing entry point: decodes arbitrary bytes and discards the result; must never trap.
    public static func fuzzParse(_ bytes: UnsafeRawBufferPointer) {
        _ = try? parse(Array(bytes)).transaction
    }
}
