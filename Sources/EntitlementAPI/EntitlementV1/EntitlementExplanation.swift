import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.EntitlementExplanation`: one entitlement, why it stands there, and the
    /// chain's transactions newest first.
    public struct EntitlementExplanation: ProtobufSchemaMessage {
        /// Exactly what CheckEntitlement answers for this chain; `nil` only if a peer omitted it.
        public var entitlement: Entitlement?
        /// One sentence for people; not meant to be parsed.
        public var reason: String = ""
        public var transactions: [TransactionFact] = []

        public init() {}

        public init(entitlement: Entitlement? = nil, reason: String = "", transactions: [TransactionFact] = []) {
            self.entitlement = entitlement
            self.reason = reason
            self.transactions = transactions
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .message(1, \.entitlement),
            .string(2, \.reason),
            .repeatedMessage(3, \.transactions),
        ]
    }
}
