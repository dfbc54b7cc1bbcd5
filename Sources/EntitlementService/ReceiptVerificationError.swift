import AppStore
import JWS

/// Why a receipt could not be verified, in the service's words.
///
/// The RPC edge (``ServiceErrors``) chooses the gRPC status and the caller's message; nothing
/// here is phrased for a protocol. Apple's failures stay the cause, for the server's log.
public enum ReceiptVerificationError: Error, Sendable {
    /// Every attempt failed without an answer (unreachable, HTTP 5xx, unreadable bodies).
    case appleUnreachable(AppleAttemptFailure, attempts: Int)
    /// Every attempt got a retryable status (21005, 21009, 21100-21199 flagged retryable).
    case appleBusy(status: Int, attempts: Int)
    /// A status Apple documents as its own problem, not retryable now.
    case appleUnavailable(status: Int)
    /// 21007 and 21008 both: Apple sent the receipt back and forth between environments.
    case environmentLoop(status: Int)
    /// 21002 on every try: Apple cannot read the receipt data.
    case unreadableReceipt
    /// 21000, 21003 and the like: not a valid App Store receipt.
    case invalidReceipt(status: Int)
    /// 21004: the configured shared secret is not this app's.
    case sharedSecretMismatch
    /// 21010: Apple no longer knows the account.
    case accountNotFound
    /// Verified, but for another app than `--bundle-id`.
    case otherBundle(found: String?, expected: String)
}

/// Why a StoreKit 2 signed transaction was refused.
public enum SignedTransactionError: Error, Sendable {
    /// The signature or the certificate chain does not verify; the error says which check failed.
    case rejected(JWSError)
    /// It verifies, but its payload is not a transaction.
    case notATransaction(reason: String)
    /// A transaction of another app than `--bundle-id`.
    case otherBundle(found: String?, expected: String)
}

extension SignedTransactionError: CustomStringConvertible {
    /// The log's wording, also the reason a Server API answer holding the transaction is refused
    /// with: it keeps the JWS code, since the operator fixes trust or bundle configuration from it.
    public var description: String {
        switch self {
        case .rejected(let error): "\(error)"
        case .notATransaction(let reason): reason
        case .otherBundle(let found, let expected): "bundleId '\(found ?? "")' is not '\(expected)'"
        }
    }
}
