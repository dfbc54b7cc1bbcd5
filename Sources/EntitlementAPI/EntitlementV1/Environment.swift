extension EntitlementV1 {
    /// `entitlement.v1.Environment`: the App Store environment a transaction was made in.
    ///
    /// A struct over the raw number rather than a Swift enum because proto3 enums are open: a
    /// value added to the schema later must survive decoding and re-encoding by this build.
    public struct Environment: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        public static let unspecified = Environment(rawValue: 0)
        public static let production = Environment(rawValue: 1)
        public static let sandbox = Environment(rawValue: 2)

        public var description: String {
            switch self {
            case .unspecified: "ENVIRONMENT_UNSPECIFIED"
            case .production: "ENVIRONMENT_PRODUCTION"
            case .sandbox: "ENVIRONMENT_SANDBOX"
            default: "Environment(\(rawValue))"
            }
        }
    }
}
