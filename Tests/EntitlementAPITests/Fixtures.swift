import EntitlementAPI

/// Messages with every field set to a non-default value, so a round trip exercises every field
/// number and a field dropped by the encoder or decoder shows up as an inequality.
enum Fixtures {
    static let entitlement = EntitlementV1.Entitlement(
        productID: "pro.monthly",
        originalTransactionID: "1000000001",
        state: .gracePeriod,
        active: true,
        purchasedAtMs: 1_700_000_000_000,
        expiresAtMs: 1_702_592_000_000,
        gracePeriodExpiresAtMs: 1_703_196_800_000,
        willAutoRenew: true,
        isTrialPeriod: true,
        isInIntroOfferPeriod: true,
        productType: .autoRenewable,
        subscriptionGroupID: "21000001",
        environment: .sandbox,
        latestTransactionID: "1000000009",
        entitlementID: "pro"
    )

    static let historyEvent = EntitlementV1.HistoryEvent(
        eventID: "ev-1",
        type: .refund,
        occurredAtMs: 1_702_600_000_000,
        productID: "pro.monthly",
        transactionID: "1000000009",
        originalTransactionID: "1000000001",
        expiresAtMs: 1_702_592_000_000,
        environment: .production,
        source: .notificationV2,
        appleNotificationType: "REFUND"
    )
}

/// Bytes from a hex string; spaces are ignored so vectors can be grouped by field.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd number of hex digits in \(text)")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// Lower-case hex of `bytes`, for readable assertion failures.
func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        .joined()
}
