import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.ProductType`: how a product grants access.
    ///
    /// Open like every proto3 enum: unknown numbers are kept, not rejected.
    public struct ProductType: ProtobufNamedEnum {
        public var rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        public static let unspecified = ProductType(rawValue: 0)
        public static let autoRenewable = ProductType(rawValue: 1)
        public static let nonRenewing = ProductType(rawValue: 2)
        public static let nonConsumable = ProductType(rawValue: 3)
        public static let consumable = ProductType(rawValue: 4)
        public static let promotional = ProductType(rawValue: 5)

        public static let protoNames = [
            "PRODUCT_TYPE_UNSPECIFIED", "PRODUCT_TYPE_AUTO_RENEWABLE", "PRODUCT_TYPE_NON_RENEWING",
            "PRODUCT_TYPE_NON_CONSUMABLE", "PRODUCT_TYPE_CONSUMABLE", "PRODUCT_TYPE_PROMOTIONAL",
        ]
    }
}
