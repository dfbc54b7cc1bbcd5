import JWS

/// Reads the in-app purchases out of an App Store app receipt locally, the way Apple's
/// ReceiptUtility does to move an app off verifyReceipt: the receipt is PKCS#7 SignedData whose
/// content is a SET of attributes; each attribute of type 17 is one in-app purchase receipt,
/// itself a SET in which 1703 is the transaction_id and 1705 the original_transaction_id.
///
/// The receipt's own signature is not checked: the ids only say what to ask the App Store
/// Server API, whose signed answer is verified before anything is stored.
public enum AppReceipt {
    public struct InAppPurchase: Sendable, Equatable {
        public var transactionID: String
        public var originalTransactionID: String
    }

    static let inAppPurchaseType: Int64 = 17
    static let transactionIDType: Int64 = 1703
    static let originalTransactionIDType: Int64 = 1705

    /// The receipt's in-app purchases in receipt order; empty when it has none (a receipt made
    /// before the first purchase). Throws ``ASN1Error`` when the bytes are not such a receipt.
    public static func inAppPurchases(der: [UInt8]) throws(ASN1Error) -> [InAppPurchase] {
        let payload = try ASN1.attributeSet(try ASN1.pkcs7SignedContent(der))
        var purchases: [InAppPurchase] = []
        for attribute in payload where attribute.type == inAppPurchaseType {
            var transactionID: String?
            var originalTransactionID: String?
            for field in try ASN1.attributeSet(attribute.value) {
                switch field.type {
                case transactionIDType: transactionID = try ASN1.string(field.value)
                case originalTransactionIDType: originalTransactionID = try ASN1.string(field.value)
                default: continue
                }
            }
            guard let transactionID, !transactionID.isEmpty else { continue }
            purchases.append(InAppPurchase(
                transactionID: transactionID,
                originalTransactionID: originalTransactionID.flatMap { $0.isEmpty ? nil : $0 } ?? transactionID))
        }
        return purchases
    }
}
