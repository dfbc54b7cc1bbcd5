import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.EventType`: what happened to a purchase or subscription.
    ///
    /// Open like every proto3 enum: unknown numbers are kept, not rejected.
    public struct EventType: ProtobufEnum, CustomStringConvertible {
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

        public var description: String {
            switch self {
            case .unspecified: "EVENT_TYPE_UNSPECIFIED"
            case .purchase: "EVENT_TYPE_PURCHASE"
            case .renewal: "EVENT_TYPE_RENEWAL"
            case .expired: "EVENT_TYPE_EXPIRED"
            case .refund: "EVENT_TYPE_REFUND"
            case .revoke: "EVENT_TYPE_REVOKE"
            case .autoRenewDisabled: "EVENT_TYPE_AUTO_RENEW_DISABLED"
            case .autoRenewEnabled: "EVENT_TYPE_AUTO_RENEW_ENABLED"
            case .billingRetry: "EVENT_TYPE_BILLING_RETRY"
            case .gracePeriod: "EVENT_TYPE_GRACE_PERIOD"
            case .billingRecovered: "EVENT_TYPE_BILLING_RECOVERED"
            case .productChange: "EVENT_TYPE_PRODUCT_CHANGE"
            case .ownershipTransfer: "EVENT_TYPE_OWNERSHIP_TRANSFER"
            case .grant: "EVENT_TYPE_GRANT"
            case .grantRevoked: "EVENT_TYPE_GRANT_REVOKED"
            case .renewalExtended: "EVENT_TYPE_RENEWAL_EXTENDED"
            case .consumptionRequest: "EVENT_TYPE_CONSUMPTION_REQUEST"
            case .refundDeclined: "EVENT_TYPE_REFUND_DECLINED"
            case .claimRefused: "EVENT_TYPE_CLAIM_REFUSED"
            case .entitlementsRefreshed: "EVENT_TYPE_ENTITLEMENTS_REFRESHED"
            default: "EventType(\(rawValue))"
            }
        }
    }
}
