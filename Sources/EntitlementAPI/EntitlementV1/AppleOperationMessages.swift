import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.ExtendSubscriptionRequest`: move a chain's renewal date later at Apple.
    public struct ExtendSubscriptionRequest: ProtobufSchemaMessage {
        public var userID: String = ""
        public var originalTransactionID: String = ""
        /// 1...90, Apple's limit.
        public var extendByDays: Int32 = 0
        /// Apple's extendReasonCode, 0...3.
        public var reasonCode: Int32 = 0
        /// Apple's requestIdentifier; generated when empty.
        public var requestID: String = ""

        public init() {}

        public init(
            userID: String, originalTransactionID: String, extendByDays: Int32, reasonCode: Int32 = 0,
            requestID: String = ""
        ) {
            self.userID = userID
            self.originalTransactionID = originalTransactionID
            self.extendByDays = extendByDays
            self.reasonCode = reasonCode
            self.requestID = requestID
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.userID),
            .string(2, \.originalTransactionID),
            .int32(3, \.extendByDays),
            .int32(4, \.reasonCode),
            .string(5, \.requestID),
        ]
    }

    /// `entitlement.v1.ExtendSubscriptionResponse`: the chain after Apple extended it.
    public struct ExtendSubscriptionResponse: ProtobufSchemaMessage {
        public var entitlement: Entitlement?
        /// Apple's effectiveDate: the new renewal date.
        public var effectiveAtMs: Int64 = 0

        public init() {}

        public static let schema: [ProtobufSchemaField<Self>] = [
            .message(1, \.entitlement),
            .int64(2, \.effectiveAtMs),
        ]
    }

    /// `entitlement.v1.LookUpOrderRequest`: the order id from a customer's invoice.
    public struct LookUpOrderRequest: ProtobufSchemaMessage {
        public var orderID: String = ""

        public init() {}

        public init(orderID: String) { self.orderID = orderID }

        public static let schema: [ProtobufSchemaField<Self>] = [.string(1, \.orderID)]
    }

    /// `entitlement.v1.OrderTransaction`: one transaction of an order and who owns its chain.
    public struct OrderTransaction: ProtobufSchemaMessage {
        public var transactionID: String = ""
        public var originalTransactionID: String = ""
        public var productID: String = ""
        public var purchasedAtMs: Int64 = 0
        /// Empty when no user owns the chain.
        public var ownerUserID: String = ""

        public init() {}

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.transactionID),
            .string(2, \.originalTransactionID),
            .string(3, \.productID),
            .int64(4, \.purchasedAtMs),
            .string(5, \.ownerUserID),
        ]
    }

    /// `entitlement.v1.LookUpOrderResponse`: whether Apple knows the order, and its transactions.
    public struct LookUpOrderResponse: ProtobufSchemaMessage {
        public var found: Bool = false
        public var transactions: [OrderTransaction] = []

        public init() {}

        public static let schema: [ProtobufSchemaField<Self>] = [
            .bool(1, \.found),
            .repeatedMessage(2, \.transactions),
        ]
    }

    /// `entitlement.v1.SignPromotionalOfferRequest`: an offer signature for a user.
    public struct SignPromotionalOfferRequest: ProtobufSchemaMessage {
        public var userID: String = ""
        public var productID: String = ""
        public var offerID: String = ""

        public init() {}

        public init(userID: String, productID: String, offerID: String) {
            self.userID = userID
            self.productID = productID
            self.offerID = offerID
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.userID),
            .string(2, \.productID),
            .string(3, \.offerID),
        ]
    }

    /// `entitlement.v1.SignPromotionalOfferResponse`: what StoreKit needs to apply the offer.
    public struct SignPromotionalOfferResponse: ProtobufSchemaMessage {
        public var keyID: String = ""
        /// A fresh lowercase UUID.
        public var nonce: String = ""
        public var timestampMs: Int64 = 0
        /// Base64 DER ECDSA P-256/SHA-256 by the In-App Purchase key.
        public var signature: String = ""
        /// The signed applicationUsername: the user's app account token, lowercase.
        public var appAccountToken: String = ""
        /// The StoreKit 2 form: a compact JWS by the same key (Apple's promotional offer V2).
        public var compactJWS: String = ""

        public init() {}

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.keyID),
            .string(2, \.nonce),
            .int64(3, \.timestampMs),
            .string(4, \.signature),
            .string(5, \.appAccountToken),
            .string(6, \.compactJWS),
        ]
    }

    /// `entitlement.v1.RecordConsumptionRequest`: what the customer used, for Apple's refund
    /// question.
    public struct RecordConsumptionRequest: ProtobufSchemaMessage {
        public var userID: String = ""
        public var transactionID: String = ""
        public var customerConsented: Bool = false
        /// Milli-percent, 0...100000 (Apple's unit).
        public var consumptionPercentage: Int32 = 0
        /// One of Apple's DeliveryStatus names, e.g. "DELIVERED".
        public var deliveryStatus: String = ""
        public var sampleContentProvided: Bool = false

        public init() {}

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.userID),
            .string(2, \.transactionID),
            .bool(3, \.customerConsented),
            .int32(4, \.consumptionPercentage),
            .string(5, \.deliveryStatus),
            .bool(6, \.sampleContentProvided),
        ]
    }

    /// `entitlement.v1.RecordConsumptionResponse`: empty; the data is stored.
    public struct RecordConsumptionResponse: ProtobufSchemaMessage {
        public init() {}

        public static let schema: [ProtobufSchemaField<Self>] = []
    }
}
