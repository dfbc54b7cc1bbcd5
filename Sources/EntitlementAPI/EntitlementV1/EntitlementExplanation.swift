import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.EntitlementExplanation`: one entitlement, why it stands there, and the
    /// chain's transactions newest first.
    public struct EntitlementExplanation: ProtobufMessage {
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

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): entitlement = try reader.readMessage() as Entitlement
                case (2, .lengthDelimited): reason = try reader.readString()
                case (3, .lengthDelimited): transactions.append(try reader.readMessage())
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            if let entitlement {
                writer.writeMessage(entitlement, field: 1)
            }
            writer.writeString(reason, field: 2)
            for transaction in transactions {
                writer.writeMessage(transaction, field: 3)
            }
        }
    }
}
