import AppStore
import Entitlements
import XCTest

/// Apple's field drift (numbers vs strings, boolean spellings, object-for-array) reads alike;
/// what cannot be read fails naming the field.
final class VerifyReceiptToleranceTests: XCTestCase {
    /// One receipt info entry as raw JSON snippets, every value a string as most answers send.
    private static let stringEntry: [String: String] = [
        "transaction_id": #""1000000000000002""#,
        "original_transaction_id": #""1000000000000001""#,
        "product_id": #""com.example.monthly""#,
        "purchase_date_ms": #""1600000000000""#,
        "original_purchase_date_ms": #""1590000000000""#,
        "expires_date_ms": #""1602592000000""#,
        "cancellation_date_ms": #""1601000000000""#,
        "quantity": #""1""#,
        "is_trial_period": #""true""#,
        "is_in_intro_offer_period": #""false""#,
        "is_upgraded": #""true""#,
        "subscription_group_identifier": #""20000001""#,
        "web_order_line_item_id": #""1000000050000001""#,
        "in_app_ownership_type": #""FAMILY_SHARED""#,
        "app_account_token": #""207262da-1ac8-4e0a-a399-5aa62a82800f""#,
    ]

    private static let expected = Transaction(
        transactionID: "1000000000000002", originalTransactionID: "1000000000000001",
        productID: "com.example.monthly", purchaseDateMs: 1_600_000_000_000,
        originalPurchaseDateMs: 1_590_000_000_000, expiresDateMs: 1_602_592_000_000,
        cancellationDateMs: 1_601_000_000_000, isTrialPeriod: true, isInIntroOfferPeriod: false,
        isUpgraded: true, subscriptionGroupIdentifier: "20000001",
        webOrderLineItemID: "1000000050000001", inAppOwnershipType: "FAMILY_SHARED",
        appAccountToken: "207262da-1ac8-4e0a-a399-5aa62a82800f", environment: .sandbox)

    private static func render(_ entry: [String: String]) -> String {
        "{" + entry.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    private static func body(latest: String, pending: String = "[]", extra: String = "") -> [UInt8] {
        (#"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.example","in_app":[]},"#
            + #""latest_receipt_info":\#(latest),"pending_renewal_info":\#(pending)\#(extra)}"#).bytes
    }

    private func parseEntry(_ entry: [String: String]) throws(AppStoreFormatError) -> Transaction? {
        try VerifyReceiptResponse.parse(Self.body(latest: "[\(Self.render(entry))]"), observedAtMs: 0)
            .transactions.first
    }

    func testNumbersAndStringsReadAlike() throws {
        XCTAssertEqual(try parseEntry(Self.stringEntry), Self.expected)
        var numeric = Self.stringEntry
        for key in ["transaction_id", "original_transaction_id", "purchase_date_ms",
                    "original_purchase_date_ms", "expires_date_ms", "cancellation_date_ms",
                    "quantity", "subscription_group_identifier", "web_order_line_item_id"] {
            numeric[key] = numeric[key]!.replacingOccurrences(of: "\"", with: "")
        }
        numeric["is_trial_period"] = "1"
        numeric["is_in_intro_offer_period"] = "0"
        numeric["is_upgraded"] = "true"
        XCTAssertEqual(try parseEntry(numeric), Self.expected)
    }

    func testBooleanSpellings() throws {
        let table: [(String, Bool)] = [
            ("true", true), (#""true""#, true), ("1", true), (#""1""#, true), (#""TRUE""#, true),
            ("false", false), (#""false""#, false), ("0", false), (#""0""#, false),
            ("null", false), (#""""#, false),
        ]
        for (raw, want) in table {
            var entry = Self.stringEntry
            entry["is_trial_period"] = raw
            XCTAssertEqual(try parseEntry(entry)?.isTrialPeriod, want, raw)
        }
        for raw in [#""yes""#, "2", "1.5", "[]", "{}"] {
            var entry = Self.stringEntry
            entry["is_trial_period"] = raw
            assertFormatError(.invalidValue, field: "latest_receipt_info[0].is_trial_period") {
                () throws(AppStoreFormatError) in try parseEntry(entry)
            }
        }
    }

    /// Ids beyond 2^53 (where Double rounds) stay exact whether Apple sends numbers or strings.
    func testLargeNumericIdsStayExact() throws {
        for id in ["9007199254740993", "1234567890123456789", "9223372036854775807",
                   "12345678901234567890", "1234567890123456789012345"] {
            var entry = Self.stringEntry
            entry["transaction_id"] = id
            entry["original_transaction_id"] = id
            entry["web_order_line_item_id"] = id
            let transaction = try XCTUnwrap(try parseEntry(entry))
            XCTAssertEqual(transaction.transactionID, id)
            XCTAssertEqual(transaction.originalTransactionID, id)
            XCTAssertEqual(transaction.webOrderLineItemID, id)
        }
        // An integral double below 2^53 is exact, so exponent notation is read.
        var exponent = Self.stringEntry
        exponent["transaction_id"] = "1e3"
        XCTAssertEqual(try parseEntry(exponent)?.transactionID, "1000")
        // Past what NSDecimalNumber keeps, or not an integer: refused rather than rounded.
        for id in [String(repeating: "9", count: 45), "1.5", "1e300", "true"] {
            var entry = Self.stringEntry
            entry["transaction_id"] = id
            assertFormatError(.invalidValue, field: "latest_receipt_info[0].transaction_id") {
                () throws(AppStoreFormatError) in try parseEntry(entry)
            }
        }
    }

    func testSingleObjectLatestReceiptInfoAndUnknownFields() throws {
        var entry = Self.stringEntry
        entry["some_future_field"] = #"{"nested":[1,2,{"x":null}]}"#
        entry["expires_date_pst"] = #""2020-10-13 05:26:40 America/Los_Angeles""#
        let body = Self.body(latest: Self.render(entry), extra: #","unknown_top":[true]"#)
        let response = try VerifyReceiptResponse.parse(body, observedAtMs: 0)
        XCTAssertEqual(response.transactions, [Self.expected])
    }

    func testMissingOptionalFieldsAreNil() throws {
        let minimal = [
            "transaction_id": "5", "product_id": #""com.example.gems""#, "purchase_date_ms": "7",
        ]
        XCTAssertEqual(try parseEntry(minimal), Transaction(
            transactionID: "5", originalTransactionID: "5", productID: "com.example.gems",
            purchaseDateMs: 7, originalPurchaseDateMs: 7, environment: .sandbox))
    }

    func testUnreadableValuesNameTheirField() {
        let table: [(key: String, raw: String?, code: AppStoreFormatError.Code)] = [
            ("transaction_id", nil, .missingField),
            ("transaction_id", "null", .missingField),
            ("product_id", nil, .missingField),
            ("product_id", #"{"a":1}"#, .invalidValue),
            ("purchase_date_ms", nil, .missingField),
            ("purchase_date_ms", #""soon""#, .invalidValue),
            ("purchase_date_ms", "true", .invalidValue),
            ("expires_date_ms", #""1.5""#, .invalidValue),
            ("expires_date_ms", "1e30", .invalidValue),
            ("quantity", #""one""#, .invalidValue),
            ("web_order_line_item_id", "[1]", .invalidValue),
        ]
        for row in table {
            var entry = Self.stringEntry
            entry[row.key] = row.raw
            assertFormatError(row.code, field: "latest_receipt_info[0].\(row.key)") {
                () throws(AppStoreFormatError) in try parseEntry(entry)
            }
        }
    }

    func testMalformedDocuments() {
        let table: [(String, AppStoreFormatError.Code, String)] = [
            ("", .invalidJSON, ""),
            (#"{"status":0"#, .invalidJSON, ""),
            ("[1,2]", .invalidJSON, ""),
            (#"{"environment":"Sandbox"}"#, .missingField, "status"),
            (#"{"status":"ok"}"#, .invalidValue, "status"),
            (#"{"status":0,"environment":"Staging"}"#, .invalidValue, "environment"),
            (#"{"status":0,"receipt":[]}"#, .invalidValue, "receipt"),
            (#"{"status":0,"latest_receipt_info":"x"}"#, .invalidValue, "latest_receipt_info"),
            (#"{"status":0,"receipt":{"in_app":[{"transaction_id":"1","product_id":"p","purchase_date_ms":"1"},7]}}"#,
             .invalidValue, "receipt.in_app[1]"),
            (#"{"status":0,"pending_renewal_info":[{"auto_renew_status":"1"}]}"#,
             .missingField, "pending_renewal_info[0].original_transaction_id"),
            (#"{"status":0,"pending_renewal_info":[{"original_transaction_id":"1","expiration_intent":"x"}]}"#,
             .invalidValue, "pending_renewal_info[0].expiration_intent"),
        ]
        for (body, code, field) in table {
            assertFormatError(code, field: field) { () throws(AppStoreFormatError) in
                try VerifyReceiptResponse.parse(body.bytes, observedAtMs: 0)
            }
        }
    }

    /// A conflicting duplicate: latest_receipt_info wins over in_app, whatever the order.
    func testLatestReceiptInfoWinsConflicts() throws {
        let inApp = #"{"transaction_id":"1","product_id":"p","purchase_date_ms":"10","expires_date_ms":"20"}"#
        let latest = #"{"transaction_id":1,"product_id":"p","purchase_date_ms":10,"expires_date_ms":20,"#
            + #""cancellation_date_ms":15}"#
        let body =
            #"{"status":0,"environment":"Production","receipt":{"bundle_id":"b","in_app":[\#(inApp)]},"#
            + #""latest_receipt_info":\#(latest)}"#
        let response = try VerifyReceiptResponse.parse(body.bytes, observedAtMs: 0)
        XCTAssertEqual(response.transactions.map(\.cancellationDateMs), [15])
        XCTAssertEqual(response.transactions.first?.environment, .production)
    }

    func testPendingRenewalInfoFields() throws {
        let pending = #"[{"original_transaction_id":77,"auto_renew_status":"0","auto_renew_product_id":"p2","#
            + #""is_in_billing_retry_period":"1","grace_period_expires_date_ms":"1700","expiration_intent":"2"}]"#
        let response = try VerifyReceiptResponse.parse(Self.body(latest: "[]", pending: pending), observedAtMs: 42)
        XCTAssertEqual(response.renewalInfos, [RenewalInfo(
            originalTransactionID: "77", autoRenewStatus: false, autoRenewProductID: "p2",
            isInBillingRetryPeriod: true, gracePeriodExpiresDateMs: 1700, expirationIntent: 2,
            signedDateMs: 42)])

        let minimal = try VerifyReceiptResponse.parse(
            Self.body(latest: "[]", pending: #"{"original_transaction_id":"77"}"#), observedAtMs: 42)
        XCTAssertEqual(minimal.renewalInfos, [RenewalInfo(
            originalTransactionID: "77", autoRenewStatus: false, signedDateMs: 42)])
    }

    /// Error answers parse status, is-retryable and environment only; the rest may be absent.
    func testErrorStatusesParseLeniently() throws {
        let table: [(String, Int, Bool?, Environment?)] = [
            (#"{"status":21100,"is-retryable":true}"#, 21100, true, nil),
            (#"{"status":"21199","is-retryable":1,"environment":"Sandbox"}"#, 21199, true, .sandbox),
            (#"{"status":21007}"#, 21007, nil, nil),
            (#"{"status":21005,"receipt":"garbage","is-retryable":"maybe"}"#, 21005, nil, nil),
            (#"{"status":21002,"environment":"Production"}"#, 21002, nil, .production),
        ]
        for (body, status, retryable, environment) in table {
            let response = try VerifyReceiptResponse.parse(body.bytes, observedAtMs: 0)
            XCTAssertEqual(response.status, status, body)
            XCTAssertEqual(response.isRetryable, retryable, body)
            XCTAssertEqual(response.environment, environment, body)
            XCTAssertTrue(response.transactions.isEmpty)
        }
    }

    /// iOS 6 style: 21006, the receipt is itself the transaction, `bid`, single-object infos.
    func testIOS6StyleExpiredReceipt() throws {
        let body = #"{"status":21006,"receipt":{"bid":"com.example","transaction_id":"1","#
            + #""original_transaction_id":"1","product_id":"p","purchase_date_ms":"100","expires_date":"200"},"#
            + #""latest_expired_receipt_info":{"transaction_id":"2","original_transaction_id":"1","#
            + #""product_id":"p","purchase_date_ms":"200","expires_date_ms":"300"}}"#
        let response = try VerifyReceiptResponse.parse(body.bytes, observedAtMs: 0)
        XCTAssertEqual(response.status, 21006)
        XCTAssertEqual(response.bundleID, "com.example")
        XCTAssertNil(response.environment, "neither environment nor receipt_type was sent")
        XCTAssertEqual(response.transactions.map(\.transactionID), ["1", "2"])
        XCTAssertEqual(response.transactions.map(\.environment), [.production, .production])
    }

    func testReceiptTypeFallsBackForEnvironment() throws {
        let body = #"{"status":0,"receipt":{"receipt_type":"ProductionSandbox","bundle_id":"b","in_app":[]}}"#
        XCTAssertEqual(try VerifyReceiptResponse.parse(body.bytes, observedAtMs: 0).environment, .sandbox)
    }
}
