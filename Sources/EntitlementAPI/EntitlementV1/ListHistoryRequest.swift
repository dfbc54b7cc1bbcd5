import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.ListHistoryRequest`: one page of a user's history, optionally one product.
    public struct ListHistoryRequest: ProtobufSchemaMessage {
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

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.userID),
            .int32(2, \.pageSize),
            .string(3, \.pageToken),
            .string(4, \.productID),
        ]
    }
}
