import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.ExplainEntitlementRequest`: CheckEntitlement's question, asked "why?".
    ///
    /// Same filters and ``atMs`` as ``CheckEntitlementRequest``, though the field numbers of
    /// `entitlement_id` and `at_ms` are swapped relative to it.
    public struct ExplainEntitlementRequest: ProtobufMessage {
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

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): userID = try reader.readString()
                case (2, .lengthDelimited): productID = try reader.readString()
                case (3, .lengthDelimited): entitlementID = try reader.readString()
                case (4, .varint): atMs = try reader.readInt64()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(userID, field: 1)
            writer.writeString(productID, field: 2)
            writer.writeString(entitlementID, field: 3)
            writer.writeInt64(atMs, field: 4)
        }
    }
}
