import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.CheckEntitlementRequest`: whose access to check, optionally narrowed.
    ///
    /// Empty filters mean "every product" / "every entitlement"; ``atMs`` 0 means "now".
    ///
    /// Its codec is written by hand rather than derived from a ``ProtobufSchemaMessage`` schema:
    /// every CheckEntitlement call decodes one, and the schema's per-field closure call and
    /// key-path access would be paid on the hot path.
    public struct CheckEntitlementRequest: ProtobufMessage {
        public var userID: String = ""
        public var productID: String = ""
        /// The evaluation instant in ms since the Unix epoch; 0 asks for the server's clock.
        public var atMs: Int64 = 0
        public var entitlementID: String = ""

        public init() {}

        public init(userID: String = "", productID: String = "", atMs: Int64 = 0,
                    entitlementID: String = "") {
            self.userID = userID
            self.productID = productID
            self.atMs = atMs
            self.entitlementID = entitlementID
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): userID = try reader.readString()
                case (2, .lengthDelimited): productID = try reader.readString()
                case (3, .varint): atMs = try reader.readInt64()
                case (4, .lengthDelimited): entitlementID = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(userID, field: 1)
            writer.writeString(productID, field: 2)
            writer.writeInt64(atMs, field: 3)
            writer.writeString(entitlementID, field: 4)
        }
    }
}
