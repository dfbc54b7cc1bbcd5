import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.GetAppAccountTokenRequest`: whose app account token.
    public typealias GetAppAccountTokenRequest = UserRequest

    /// `entitlement.v1.RefreshEntitlementsRequest`: ask Apple (the App Store Server API) about
    /// every chain a user owns and record what is new.
    public typealias RefreshEntitlementsRequest = UserRequest

    /// A request that names only a user: `string user_id = 1` and nothing else.
    ///
    /// One type for the messages of that shape, which the proto declares apart so that each RPC
    /// can grow fields of its own; the typealiases keep the proto's names at every call site. A
    /// message that gains a field gets its own type again.
    public struct UserRequest: ProtobufSchemaMessage {
        public var userID: String = ""

        public init() {}

        public init(userID: String) { self.userID = userID }

        public static let schema: [ProtobufSchemaField<Self>] = [.string(1, \.userID)]
    }
}
