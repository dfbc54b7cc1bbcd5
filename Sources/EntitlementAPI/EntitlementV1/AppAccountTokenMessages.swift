import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.GetAppAccountTokenRequest`: whose app account token.
    public struct GetAppAccountTokenRequest: ProtobufSchemaMessage {
        public var userID: String = ""

        public init() {}

        public init(userID: String) { self.userID = userID }

        public static let schema: [ProtobufSchemaField<Self>] = [.string(1, \.userID)]
    }

    /// `entitlement.v1.GetAppAccountTokenResponse`: the user's token, a lowercase UUID.
    public struct GetAppAccountTokenResponse: ProtobufSchemaMessage {
        public var appAccountToken: String = ""

        public init() {}

        public init(appAccountToken: String) { self.appAccountToken = appAccountToken }

        public static let schema: [ProtobufSchemaField<Self>] = [.string(1, \.appAccountToken)]
    }
}
