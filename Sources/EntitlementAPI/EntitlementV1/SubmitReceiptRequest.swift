import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.SubmitReceiptRequest`: a purchase proof to verify and record for a user.
    ///
    /// Exactly one of ``receiptData`` (StoreKit 1 base64 app receipt), ``signedTransaction``
    /// (StoreKit 2 JWS) and ``transactionID`` (looked up with the App Store Server API) is
    /// expected; proto3 cannot say so, the service checks it.
    public struct SubmitReceiptRequest: ProtobufMessage {
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

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): userID = try reader.readString()
                case (2, .lengthDelimited): receiptData = try reader.readString()
                case (3, .lengthDelimited): signedTransaction = try reader.readString()
                case (4, .lengthDelimited): transactionID = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(userID, field: 1)
            writer.writeString(receiptData, field: 2)
            writer.writeString(signedTransaction, field: 3)
            writer.writeString(transactionID, field: 4)
        }
    }
}
