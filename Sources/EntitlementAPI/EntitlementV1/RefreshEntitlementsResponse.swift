import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.RefreshEntitlementsResponse`: the user's entitlements after the refresh.
    public struct RefreshEntitlementsResponse: ProtobufSchemaMessage {
        /// Evaluated at ``refreshedAtMs``, after recording what Apple said.
        public var entitlements: [Entitlement] = []
        /// Transactions Apple knew and this service did not; 0 when nothing was missed.
        public var newTransactions: Int32 = 0
        /// When the refresh finished (Unix ms): the instant the entitlements describe.
        public var refreshedAtMs: Int64 = 0

        public init() {}

        public static let schema: [ProtobufSchemaField<Self>] = [
            .repeatedMessage(1, \.entitlements),
            .int32(2, \.newTransactions),
            .int64(3, \.refreshedAtMs),
        ]
    }
}
