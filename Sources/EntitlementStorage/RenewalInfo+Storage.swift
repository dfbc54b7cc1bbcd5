import Entitlements
import SQLite

/// How a ``RenewalInfo`` maps to a `renewal_infos` row joined with its chain.
extension RenewalInfo {
    /// Columns read by ``init(row:)``; the query must alias renewal_infos as `r`, chains as `c`.
    static let selectColumns = """
        c.original_transaction_id, r.auto_renew_status, r.auto_renew_product_id,
        r.is_in_billing_retry_period, r.grace_period_expires_date_ms, r.expiration_intent,
        r.signed_date_ms
        """

    init(row: Statement) {
        self.init(
            originalTransactionID: row.string(at: 0),
            autoRenewStatus: row.bool(at: 1),
            autoRenewProductID: row.optionalString(at: 2),
            isInBillingRetryPeriod: row.bool(at: 3),
            gracePeriodExpiresDateMs: row.optionalInt64(at: 4),
            expirationIntent: row.optionalInt64(at: 5).map { Int($0) },
            signedDateMs: row.int64(at: 6))
    }
}
