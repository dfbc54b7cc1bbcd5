import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.EntitlementState`: where one entitlement stands at the evaluation instant.
    ///
    /// Open like every proto3 enum: unknown numbers are kept, not rejected.
    public struct EntitlementState: ProtobufNamedEnum {
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

        public static let protoNames = [
            "ENTITLEMENT_STATE_UNSPECIFIED", "ENTITLEMENT_STATE_ACTIVE", "ENTITLEMENT_STATE_GRACE_PERIOD",
            "ENTITLEMENT_STATE_BILLING_RETRY", "ENTITLEMENT_STATE_EXPIRED", "ENTITLEMENT_STATE_REVOKED",
        ]
    }
}
