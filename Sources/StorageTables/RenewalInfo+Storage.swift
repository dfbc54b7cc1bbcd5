import Entitlements
import SQLDatabase

/// How a ``RenewalInfo`` maps to a `renewal_infos` row joined with its chain (the auto-renew
/// product as a `product_names` row).
extension RenewalInfo {
    /// Columns read by ``init(row:)``; the query must alias renewal_infos as `r`, chains as `c`.
    package static let selectColumns =
        columns(autoRenewProductName: ProductNameSQL.name("r.auto_renew_product_name_rowid"))

    /// ``selectColumns`` with the auto-renew product's name read from the given expression, as
    /// ``Transaction/columns(productName:groupName:)``.
    package static func columns(autoRenewProductName: String) -> String {
        """
        c.original_transaction_id, r.auto_renew_status, \(autoRenewProductName),
        r.is_in_billing_retry_period, r.grace_period_expires_date_ms, r.expiration_intent,
        r.signed_date_ms
        """
    }

    /// Decodes the columns of ``selectColumns``, starting at column `offset`.
    package init(row: some SQLStatement, offset: Int32 = 0) {
        self.init(
            originalTransactionID: row.string(at: offset),
            autoRenewStatus: row.bool(at: offset + 1),
            autoRenewProductID: row.optionalString(at: offset + 2),
            isInBillingRetryPeriod: row.bool(at: offset + 3),
            gracePeriodExpiresDateMs: row.optionalInt64(at: offset + 4),
            expirationIntent: row.optionalInt64(at: offset + 5).map { Int($0) },
            signedDateMs: row.int64(at: offset + 6))
    }
}
