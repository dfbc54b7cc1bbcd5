import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.Environment`: the App Store environment a transaction was made in.
    ///
    /// Open like every proto3 enum (see ``ProtobufEnum``): unknown numbers are kept, not rejected.
    public struct Environment: ProtobufNamedEnum {
        public var rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        public static let unspecified = Environment(rawValue: 0)
        public static let production = Environment(rawValue: 1)
        public static let sandbox = Environment(rawValue: 2)

        public static let protoNames = [
            "ENVIRONMENT_UNSPECIFIED", "ENVIRONMENT_PRODUCTION", "ENVIRONMENT_SANDBOX",
        ]
    }
}
