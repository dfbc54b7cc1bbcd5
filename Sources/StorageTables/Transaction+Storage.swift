import Entitlements
import SQLDatabase

/// How a ``Transaction`` maps to a `transactions` row joined with its chain (the environment as
/// a ``StorageCodes`` code, the ownership type as ``OwnershipTypeText``, the product and group
/// ids as `product_names` rows).
extension Transaction {
    /// Columns read by ``init(row:)``, in order; the query must alias transactions as `t` and
    /// chains as `c`.
    package static let selectColumns = columns(productName: ProductNameSQL.name("t.product_name_rowid"),
                                       groupName: ProductNameSQL.name("t.group_name_rowid"))

    /// ``selectColumns`` with the product and group names read from the given expressions
    /// (columns of joined `product_names` rows, say, instead of a subquery each).
    package static func columns(productName: String, groupName: String) -> String {
        """
        c.original_transaction_id, t.transaction_id, \(productName),
        t.purchase_date_ms, t.original_purchase_date_ms, t.expires_date_ms, t.cancellation_date_ms,
        t.is_trial_period, t.is_in_intro_offer_period, t.is_upgraded,
        \(groupName), t.web_order_line_item_id, t.in_app_ownership_type,
        t.app_account_token, t.environment, t.declared_product_type
        """
    }

    /// Decodes the columns of ``selectColumns``, starting at column 0.
    package init(row: some SQLStatement) {
        self.init(
            transactionID: row.string(at: 1),
            originalTransactionID: row.string(at: 0),
            productID: row.string(at: 2),
            purchaseDateMs: row.int64(at: 3),
            originalPurchaseDateMs: row.int64(at: 4),
            expiresDateMs: row.optionalInt64(at: 5),
            cancellationDateMs: row.optionalInt64(at: 6),
            isTrialPeriod: row.bool(at: 7),
            isInIntroOfferPeriod: row.bool(at: 8),
            isUpgraded: row.bool(at: 9),
            subscriptionGroupIdentifier: row.optionalString(at: 10),
            webOrderLineItemID: row.optionalString(at: 11),
            inAppOwnershipType: OwnershipTypeText.ownershipType(stored: row.optionalString(at: 12)),
            appAccountToken: row.optionalString(at: 13),
            environment: StorageCodes.environment(row.int64(at: 14)),
            declaredProductType: row.optionalString(at: 15).flatMap(ProductType.init(rawValue:)))
    }
}
