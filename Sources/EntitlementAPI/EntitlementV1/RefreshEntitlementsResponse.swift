import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.RefreshEntitlementsResponse`: the user's entitlements after the refresh.
    public struct RefreshEntitlementsResponse: ProtobufMessage {
        /// Evaluated at ``refreshedAtMs``, after recording what Apple said.
        public var entitlements: [Entitlement] = []
        /// Transactions Apple knew and this service did not; 0 when nothing was missed.
        public var newTransactions: Int32 = 0
        /// When the refresh finished (Unix ms): the instant the entitlements describe.
        public var refreshedAtMs: Int64 = 0

        public init() {}

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): entitlements.append(try reader.readMessage())
                case (2, .varint): newTransactions = try reader.readInt32()
                case (3, .varint): refreshedAtMs = try reader.readInt64()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for entitlement in entitlements {
                writer.writeMessage(entitlement, field: 1)
            }
            writer.writeInt32(newTransactions, field: 2)
            writer.writeInt64(refreshedAtMs, field: 3)
        }
    }
}
