import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.EntitlementState`: where one entitlement stands at the evaluation instant.
    ///
    /// Open like every proto3 enum: unknown numbers are kept, not rejected.
    public struct EntitlementState: ProtobufEnum, CustomStringConvertible {
        public var rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        public static let unspecified = EntitlementState(rawValue: 0)
        public static let active = EntitlementState(rawValue: 1)
        public static let gracePeriod = EntitlementState(rawValue: 2)
        public static let billingRetry = EntitlementState(rawValue: 3)
        public static let expired = EntitlementState(rawValue: 4)
        public static let revoked = EntitlementState(rawValue: 5)

        public var description: String {
            switch self {
            case .unspecified: "ENTITLEMENT_STATE_UNSPECIFIED"
            case .active: "ENTITLEMENT_STATE_ACTIVE"
            case .gracePeriod: "ENTITLEMENT_STATE_GRACE_PERIOD"
            case .billingRetry: "ENTITLEMENT_STATE_BILLING_RETRY"
            case .expired: "ENTITLEMENT_STATE_EXPIRED"
            case .revoked: "ENTITLEMENT_STATE_REVOKED"
            default: "EntitlementState(\(rawValue))"
            }
        }
    }
}
