import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.GetAppAccountTokenResponse`: the user's token, a lowercase UUID.
    public struct GetAppAccountTokenResponse: ProtobufSchemaMessage {
        public var appAccountToken: String = ""

        public init() {}

        public init(appAccountToken: String) { self.appAccountToken = appAccountToken }

        public static let schema: [ProtobufSchemaField<Self>] = [.string(1, \.appAccountToken)]
    }
}
