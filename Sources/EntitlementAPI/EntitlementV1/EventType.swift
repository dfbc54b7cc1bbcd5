import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.EventType`: what happened to a purchase or subscription.
    ///
    /// Open like every proto3 enum: unknown numbers are kept, not rejected.
    public struct EventType: ProtobufNamedEnum {
        public var rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        public static let unspecified = EventType(rawValue: 0)
        public static let purchase = EventType(rawValue: 1)
        public static let renewal = EventType(rawValue: 2)
        public static let expired = EventType(rawValue: 3)
        public static let refund = EventType(rawValue: 4)
        public static let revoke = EventType(rawValue: 5)
        public static let autoRenewDisabled = EventType(rawValue: 6)
        public static let autoRenewEnabled = EventType(rawValue: 7)
        public static let billingRetry = EventType(rawValue: 8)
        public static let gracePeriod = EventType(rawValue: 9)
        public static let billingRecovered = EventType(rawValue: 10)
        public static let productChange = EventType(rawValue: 11)
        public static let ownershipTransfer = EventType(rawValue: 12)
        public static let grant = EventType(rawValue: 13)
        public static let grantRevoked = EventType(rawValue: 14)
        public static let renewalExtended = EventType(rawValue: 15)
        public static let consumptionRequest = EventType(rawValue: 16)
        public static let refundDeclined = EventType(rawValue: 17)
        public static let claimRefused = EventType(rawValue: 18)
        public static let entitlementsRefreshed = EventType(rawValue: 19)

        public static let protoNames = [
            "EVENT_TYPE_UNSPECIFIED", "EVENT_TYPE_PURCHASE", "EVENT_TYPE_RENEWAL", "EVENT_TYPE_EXPIRED",
            "EVENT_TYPE_REFUND", "EVENT_TYPE_REVOKE", "EVENT_TYPE_AUTO_RENEW_DISABLED",
            "EVENT_TYPE_AUTO_RENEW_ENABLED", "EVENT_TYPE_BILLING_RETRY", "EVENT_TYPE_GRACE_PERIOD",
            "EVENT_TYPE_BILLING_RECOVERED", "EVENT_TYPE_PRODUCT_CHANGE", "EVENT_TYPE_OWNERSHIP_TRANSFER",
            "EVENT_TYPE_GRANT", "EVENT_TYPE_GRANT_REVOKED", "EVENT_TYPE_RENEWAL_EXTENDED",
            "EVENT_TYPE_CONSUMPTION_REQUEST", "EVENT_TYPE_REFUND_DECLINED", "EVENT_TYPE_CLAIM_REFUSED",
            "EVENT_TYPE_ENTITLEMENTS_REFRESHED",
        ]
    }
}
