import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.RefreshEntitlementsRequest`: ask Apple (the App Store Server API) about
    /// every chain a user owns and record what is new.
    public struct RefreshEntitlementsRequest: ProtobufSchemaMessage {
        public var userID: String = ""

        public init() {}

        public init(userID: String) { self.userID = userID }

        public static let schema: [ProtobufSchemaField<Self>] = [.string(1, \.userID)]
    }
}
