import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.SubmitReceiptRequest`: a purchase proof to verify and record for a user.
    ///
    /// Exactly one of ``receiptData`` (StoreKit 1 base64 app receipt), ``signedTransaction``
    /// (StoreKit 2 JWS) and ``transactionID`` (looked up with the App Store Server API) is
    /// expected; proto3 cannot say so, the service checks it.
    public struct SubmitReceiptRequest: ProtobufSchemaMessage {
        public var userID: String = ""
        public var receiptData: String = ""
        public var signedTransaction: String = ""
        public var transactionID: String = ""

        public init() {}

        public init(userID: String = "", receiptData: String = "", signedTransaction: String = "",
                    transactionID: String = "") {
            self.userID = userID
            self.receiptData = receiptData
            self.signedTransaction = signedTransaction
            self.transactionID = transactionID
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.userID),
            .string(2, \.receiptData),
            .string(3, \.signedTransaction),
            .string(4, \.transactionID),
        ]
    }
}
