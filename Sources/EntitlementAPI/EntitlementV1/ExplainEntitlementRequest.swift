import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.ExplainEntitlementRequest`: CheckEntitlement's question, asked "why?".
    ///
    /// Same filters and ``atMs`` as ``CheckEntitlementRequest``, though the field numbers of
    /// `entitlement_id` and `at_ms` are swapped relative to it.
    public struct ExplainEntitlementRequest: ProtobufSchemaMessage {
        public var userID: String = ""
        public var productID: String = ""
        public var entitlementID: String = ""
        /// The evaluation instant in ms since the Unix epoch; 0 asks for the server's clock.
        public var atMs: Int64 = 0

        public init() {}

        public init(userID: String = "", productID: String = "", entitlementID: String = "", atMs: Int64 = 0) {
            self.userID = userID
            self.productID = productID
            self.entitlementID = entitlementID
            self.atMs = atMs
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.userID),
            .string(2, \.productID),
            .string(3, \.entitlementID),
            .int64(4, \.atMs),
        ]
    }
}
