/// What the service must do with a verifyReceipt `status`.
///
/// A pure table, kept apart from parsing so the retry and fallback policy is reviewable in one
/// place: the field's classic mistakes are falling back to sandbox on 21002 (a malformed or
/// temporary failure, never an environment mismatch) and not falling back on 21007.
public enum VerifyReceiptStatus {
    /// The service's next step for one response.
    public enum Disposition: Sendable, Hashable {
        /// 0 and 21006: the receipt is valid (21006: valid but the subscription expired, an iOS 6
        /// style answer); parse the body and record its transactions.
        case ok
        /// 21000, 21003: the request or receipt was rejected; answer INVALID_ARGUMENT.
        case invalidArgument
        /// 21002: malformed receipt data *or* a temporary Apple issue. Retry a small number of
        /// times at the same endpoint, then answer INVALID_ARGUMENT. Never fall back to sandbox.
        case retryThenInvalidArgument
        /// 21004: our shared secret does not match the app's; a configuration error, answered
        /// FAILED_PRECONDITION telling the operator to check `--apple-shared-secret`.
        case sharedSecretMismatch
        /// 21007: a sandbox receipt sent to production; resend the same request to sandbox.
        case retryAtSandbox
        /// 21008: a production receipt sent to sandbox; resend the same request to production.
        case retryAtProduction
        /// 21010: the account was not found or deleted; treat as never purchased (NOT_FOUND).
        case accountNotFound
        /// 21005, 21009, and 21100–21199 with `is-retryable` set: Apple is temporarily unable;
        /// retry with backoff, then answer UNAVAILABLE.
        case retryable
        /// 21100–21199 without `is-retryable`, and every status we do not know: answer
        /// UNAVAILABLE at once, naming the status.
        case unavailable(status: Int)
    }

    /// Classifies `status`; `isRetryable` is the response's `is-retryable` (`nil` when absent).
    public static func classify(status: Int, isRetryable: Bool?) -> Disposition {
        switch status {
        case 0, 21006: return .ok
        case 21000, 21003: return .invalidArgument
        case 21002: return .retryThenInvalidArgument
        case 21004: return .sharedSecretMismatch
        case 21007: return .retryAtSandbox
        case 21008: return .retryAtProduction
        case 21010: return .accountNotFound
        case 21005, 21009: return .retryable
        case 21100...21199: return isRetryable == true ? .retryable : .unavailable(status: status)
        default: return .unavailable(status: status)
        }
    }
}
