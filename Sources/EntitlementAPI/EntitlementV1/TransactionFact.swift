import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.TransactionFact`: one stored transaction of a chain, as an explanation
    /// lists it.
    public struct TransactionFact: ProtobufSchemaMessage {
        public var transactionID: String = ""
        public var productID: String = ""
        public var purchasedAtMs: Int64 = 0
        /// 0 when Apple gave no expiry.
        public var expiresAtMs: Int64 = 0
        /// The refund or revocation instant; 0 when not refunded (an upgrade is not a refund).
        public var revokedAtMs: Int64 = 0
        public var upgraded: Bool = false
        /// Who reported the transaction first; unspecified when the history does not say.
        public var source: EventSource = .unspecified
        /// The one transaction the state rests on.
        public var decisive: Bool = false

        public init() {}

        public init(
            transactionID: String = "", productID: String = "", purchasedAtMs: Int64 = 0, expiresAtMs: Int64 = 0,
            revokedAtMs: Int64 = 0, upgraded: Bool = false, source: EventSource = .unspecified,
            decisive: Bool = false
        ) {
            self.transactionID = transactionID
            self.productID = productID
            self.purchasedAtMs = purchasedAtMs
            self.expiresAtMs = expiresAtMs
            self.revokedAtMs = revokedAtMs
            self.upgraded = upgraded
            self.source = source
            self.decisive = decisive
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.transactionID),
            .string(2, \.productID),
            .int64(3, \.purchasedAtMs),
            .int64(4, \.expiresAtMs),
            .int64(5, \.revokedAtMs),
            .bool(6, \.upgraded),
            .enumeration(7, \.source),
            .bool(8, \.decisive),
        ]
    }
}
