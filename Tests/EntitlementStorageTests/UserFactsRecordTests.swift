@testable import EntitlementStorage
import Entitlements
import Testing

/// The read model's record format: every field round-trips, corrupt bytes are refused, never
/// misread, and an unknown version reads as "no record".
struct UserFactsRecordTests {
    static let full = Transaction(
        transactionID: "2000000123456789", originalTransactionID: "2000000123456700", productID: "pro.monthly",
        purchaseDateMs: 1_700_000_000_000, originalPurchaseDateMs: 1_690_000_000_000,
        expiresDateMs: 1_702_592_000_000, cancellationDateMs: 1_701_000_000_000, isTrialPeriod: true,
        isInIntroOfferPeriod: true, isUpgraded: true, subscriptionGroupIdentifier: "grp.pro",
        webOrderLineItemID: "2000000054321", inAppOwnershipType: "FAMILY_SHARED",
        appAccountToken: "5e5c4ea0-7a7b-4b5e-9c3e-6f6b6e6d6c6b", environment: .sandbox,
        declaredProductType: .nonRenewing)
    static let bare = Transaction(transactionID: "1", originalTransactionID: "1", productID: "coins.100",
                                  purchaseDateMs: -5)
    static let renewal = RenewalInfo(
        originalTransactionID: "2000000123456700", autoRenewStatus: true, autoRenewProductID: "pro.yearly",
        isInBillingRetryPeriod: true, gracePeriodExpiresDateMs: 1_703_000_000_000, expirationIntent: 2,
        signedDateMs: 1_702_000_000_000)
    static let quietRenewal = RenewalInfo(originalTransactionID: "1", autoRenewStatus: false, signedDateMs: 0)

    static let samples: [UserFacts] = [
        UserFacts(),
        UserFacts(transactions: [bare]),
        UserFacts(transactions: [full], renewalInfos: [full.originalTransactionID: renewal]),
        UserFacts(transactions: [full, bare, Transaction(
            transactionID: "2000000123456790", originalTransactionID: "2000000123456700", productID: "pro.monthly",
            purchaseDateMs: Int64.max, expiresDateMs: Int64.min, declaredProductType: .consumable)],
                  renewalInfos: ["2000000123456700": renewal, "1": quietRenewal]),
        // A chain known only by its renewal info.
        UserFacts(renewalInfos: ["1": quietRenewal]),
    ]

    @Test(arguments: samples)
    func roundTrips(_ facts: UserFacts) throws {
        let bytes = UserFactsRecord.encode(facts)
        let decoded = try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) }
        #expect(decoded == facts)
        #expect(UserFactsRecord.encode(decoded!) == bytes, "equal facts encode to equal bytes")
    }

    @Test(arguments: samples)
    func everyTruncationIsRefused(_ facts: UserFacts) {
        let bytes = UserFactsRecord.encode(facts)
        for length in 0..<bytes.count {
            #expect(throws: UserFactsRecord.Malformed.self) {
                _ = try Array(bytes[..<length]).withUnsafeBytes { try UserFactsRecord.decode($0) }
            }
        }
        #expect(throws: UserFactsRecord.Malformed.self) {
            _ = try (bytes + [0]).withUnsafeBytes { try UserFactsRecord.decode($0) }
        }
    }

    @Test func anOutOfRangeReferenceIsRefused() {
        // version 1, no strings, one transaction whose transaction id refers to string 0.
        let bytes: [UInt8] = [1, 0, 1, 0, 0]
        #expect(throws: UserFactsRecord.Malformed.self) {
            _ = try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) }
        }
    }

    @Test func anUnknownVersionIsNoRecord() throws {
        var bytes = UserFactsRecord.encode(Self.samples[2])
        bytes[0] = UserFactsRecord.version + 1
        #expect(try bytes.withUnsafeBytes { try UserFactsRecord.decode($0) } == nil)
    }

    /// The record stores these enums by position: reordering or inserting a case silently
    /// changes old records' meaning, so it must come with a new record version.
    @Test func theEnumOrderTheFormatDependsOnIsPinned() {
        #expect(Environment.allCases == [.production, .sandbox])
        #expect(ProductType.allCases == [.autoRenewable, .nonRenewing, .nonConsumable, .consumable])
    }
}
