import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.TransactionFact`: one stored transaction of a chain, as an explanation
    /// lists it.
    public struct TransactionFact: ProtobufMessage {
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

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): transactionID = try reader.readString()
                case (2, .lengthDelimited): productID = try reader.readString()
                case (3, .varint): purchasedAtMs = try reader.readInt64()
                case (4, .varint): expiresAtMs = try reader.readInt64()
                case (5, .varint): revokedAtMs = try reader.readInt64()
                case (6, .varint): upgraded = try reader.readBool()
                case (7, .varint): source = EventSource(rawValue: try reader.readEnum())
                case (8, .varint): decisive = try reader.readBool()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(transactionID, field: 1)
            writer.writeString(productID, field: 2)
            writer.writeInt64(purchasedAtMs, field: 3)
            writer.writeInt64(expiresAtMs, field: 4)
            writer.writeInt64(revokedAtMs, field: 5)
            writer.writeBool(upgraded, field: 6)
            writer.writeEnum(source, field: 7)
            writer.writeBool(decisive, field: 8)
        }
    }
}
