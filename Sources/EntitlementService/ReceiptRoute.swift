/// Where SubmitReceipt sends `receipt_data` (--receipt-mode, resolved at startup).
public enum ReceiptRoute: Sendable, Equatable {
    /// Apple's deprecated verifyReceipt endpoint (no Server API key, or --receipt-mode verify-receipt).
    case verifyReceipt
    /// Read the transaction ids out of the receipt locally and ask the App Store Server API.
    /// A receipt with no in-app purchase goes to verifyReceipt when `fallback` (auto mode), and
    /// is refused otherwise (server-api mode), since the Server API needs a transaction id.
    case serverAPI(fallbackToVerifyReceipt: Bool)
}
