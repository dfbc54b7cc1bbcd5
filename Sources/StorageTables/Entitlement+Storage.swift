import Entitlements
import SQLDatabase

/// How an ``Entitlement`` maps to the entitlement columns `entitlement_changes` and
/// `entitlement_heads` share
/// (declared in the migration `entitlement_change_log`).
extension Entitlement {
    /// The shared columns' names, in bind and read order.
    package static let columnNames = """
        product_id, original_transaction_id, state, purchased_at_ms, expires_at_ms,
        grace_period_expires_at_ms, will_auto_renew, is_trial_period, is_in_intro_offer_period, product_type,
        subscription_group_id, environment, latest_transaction_id, entitlement_id
        """
    package static let columnCount: Int32 = 14
    /// `column = excluded.column` for every shared column but the key's chain id (an upsert's SET).
    package static let updateFromExcluded = columnNames.split(separator: ",")
        .map { String($0.filter { !$0.isWhitespace }) }
        .filter { $0 != "original_transaction_id" }
        .map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    /// Binds the shared columns to parameters `first` ... `first + 13`.
    package func bind(to statement: some SQLStatement, from first: Int32) {
        statement.bind(productID, at: first)
        statement.bind(originalTransactionID, at: first + 1)
        statement.bind(state.rawValue, at: first + 2)
        statement.bind(purchasedAtMs, at: first + 3)
        statement.bind(expiresAtMs, at: first + 4)
        statement.bind(gracePeriodExpiresAtMs, at: first + 5)
        statement.bind(willAutoRenew, at: first + 6)
        statement.bind(isTrialPeriod, at: first + 7)
        statement.bind(isInIntroOfferPeriod, at: first + 8)
        statement.bind(productType.rawValue, at: first + 9)
        statement.bind(subscriptionGroupID, at: first + 10)
        statement.bind(environment.rawValue, at: first + 11)
        statement.bind(latestTransactionID, at: first + 12)
        statement.bind(entitlementID, at: first + 13)
    }

    /// Decodes the shared columns starting at column `first`.
    package init(row: some SQLStatement, from first: Int32) {
        self.init(
            productID: row.string(at: first), originalTransactionID: row.string(at: first + 1),
            state: EntitlementState(rawValue: row.string(at: first + 2)) ?? .expired,
            purchasedAtMs: row.int64(at: first + 3), expiresAtMs: row.int64(at: first + 4),
            gracePeriodExpiresAtMs: row.int64(at: first + 5), willAutoRenew: row.bool(at: first + 6),
            isTrialPeriod: row.bool(at: first + 7), isInIntroOfferPeriod: row.bool(at: first + 8),
            productType: ProductType(rawValue: row.string(at: first + 9)) ?? .autoRenewable,
            subscriptionGroupID: row.string(at: first + 10),
            environment: Environment(rawValue: row.string(at: first + 11)) ?? .production,
            latestTransactionID: row.string(at: first + 12), entitlementID: row.string(at: first + 13))
    }
}
