import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.ListHistoryRequest`: one page of a user's history, optionally one product.
    public struct ListHistoryRequest: ProtobufMessage {
        public var userID: String = ""
        /// 0 asks for the server's default page size; the server also caps it.
        public var pageSize: Int32 = 0
        /// Opaque; empty for the first page, else a previous response's ``ListHistoryResponse/nextPageToken``.
        public var pageToken: String = ""
        public var productID: String = ""

        public init() {}

        public init(userID: String = "", pageSize: Int32 = 0, pageToken: String = "",
                    productID: String = "") {
            self.userID = userID
            self.pageSize = pageSize
            self.pageToken = pageToken
            self.productID = productID
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): userID = try reader.readString()
                case (2, .varint): pageSize = try reader.readInt32()
                case (3, .lengthDelimited): pageToken = try reader.readString()
                case (4, .lengthDelimited): productID = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(userID, field: 1)
            writer.writeInt32(pageSize, field: 2)
            writer.writeString(pageToken, field: 3)
            writer.writeString(productID, field: 4)
        }
    }
}
