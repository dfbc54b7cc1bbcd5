import AppStore
import Entitlements
import Foundation
import XCTest

/// The shared verifyReceipt samples parse to exactly the transactions and renewal infos they hold.
final class VerifyReceiptSampleTests: XCTestCase {
    private let observedAt: Int64 = 1_700_000_000_000

    func testSandboxNumbersOldestFirst() throws {
        let response = try VerifyReceiptResponse.parse(
            try Samples.bytes("verifyreceipt-sandbox-numbers-oldest-first.json"), observedAtMs: observedAt)
        XCTAssertEqual(response.status, 0)
        XCTAssertEqual(response.environment, .sandbox)
        XCTAssertEqual(response.bundleID, "com.example.app")
        XCTAssertEqual(response.latestReceipt, "BASE64-LATEST-RECEIPT")
        XCTAssertNil(response.isRetryable)

        let expected: [(id: String, webOrder: String, purchase: Int64, expires: Int64)] = [
            ("1000000595277992", "1000000048412170", 1_574_316_980_000, 1_574_317_280_000),
            ("1000000595280033", "1000000048412171", 1_574_317_280_000, 1_574_317_580_000),
            ("1000000595283022", "1000000048412281", 1_574_317_580_000, 1_574_317_880_000),
            ("1000000595285412", "1000000048412441", 1_574_317_880_000, 1_574_318_180_000),
            ("1000000595289391", "1000000048412586", 1_574_318_180_000, 1_574_318_480_000),
            ("1000000595292096", "1000000048412737", 1_574_318_480_000, 1_574_318_780_000),
            ("1000000595319377", "1000000048412870", 1_574_320_873_000, 1_574_324_473_000),
        ]
        XCTAssertEqual(response.transactions.count, expected.count, "in_app and latest_receipt_info overlap fully")
        for (transaction, want) in zip(response.transactions, expected) {
            XCTAssertEqual(transaction, Transaction(
                transactionID: want.id, originalTransactionID: "1000000595277992",
                productID: "com.example.app.vip.monthly", purchaseDateMs: want.purchase,
                originalPurchaseDateMs: 1_574_316_981_000, expiresDateMs: want.expires,
                // Only latest_receipt_info carries the group: proof that it won the union.
                subscriptionGroupIdentifier: "20569938", webOrderLineItemID: want.webOrder,
                environment: .sandbox))
        }
        XCTAssertEqual(response.renewalInfos, [RenewalInfo(
            originalTransactionID: "1000000595277992", autoRenewStatus: true,
            autoRenewProductID: "com.example.app.vip.monthly", signedDateMs: observedAt)])
    }

    func testProductionStringsNewestFirst() throws {
        let response = try VerifyReceiptResponse.parse(
            try Samples.bytes("verifyreceipt-production-strings-newest-first.json"), observedAtMs: observedAt)
        XCTAssertEqual(response.status, 0)
        XCTAssertEqual(response.environment, .production)
        XCTAssertEqual(response.bundleID, "com.example.app")
        XCTAssertEqual(response.transactions, [
            // in_app says is_trial_period "false", latest_receipt_info "true": latest wins.
            Transaction(
                transactionID: "510001040000001", originalTransactionID: "510001040000001",
                productID: "com.example.app.vip.yearly", purchaseDateMs: 1_656_905_129_000,
                originalPurchaseDateMs: 1_656_905_130_000, expiresDateMs: 1_657_509_929_000,
                isTrialPeriod: true, subscriptionGroupIdentifier: "20912345",
                webOrderLineItemID: "510000500000001", inAppOwnershipType: "PURCHASED",
                environment: .production),
            // The renewal exists only in latest_receipt_info.
            Transaction(
                transactionID: "510001300000002", originalTransactionID: "510001040000001",
                productID: "com.example.app.vip.yearly", purchaseDateMs: 1_669_364_367_000,
                originalPurchaseDateMs: 1_656_905_130_000, expiresDateMs: 1_700_900_367_000,
                subscriptionGroupIdentifier: "20912345", webOrderLineItemID: "510000500000003",
                inAppOwnershipType: "PURCHASED", environment: .production),
        ])
        XCTAssertEqual(response.renewalInfos, [RenewalInfo(
            originalTransactionID: "510001040000001", autoRenewStatus: false,
            autoRenewProductID: "com.example.app.vip.yearly", signedDateMs: observedAt)])
    }

    /// Reversing or rotating every array must not change the result: order is never relied on.
    func testArrayOrderDoesNotMatter() throws {
        for name in ["verifyreceipt-sandbox-numbers-oldest-first.json",
                     "verifyreceipt-production-strings-newest-first.json"] {
            let original = try VerifyReceiptResponse.parse(try Samples.bytes(name), observedAtMs: observedAt)
            var root = try XCTUnwrap(try Samples.jsonObject(name) as? [String: Any])
            var receipt = try XCTUnwrap(root["receipt"] as? [String: Any])
            receipt["in_app"] = (receipt["in_app"] as? [Any]).map { Array($0.reversed()) }
            root["receipt"] = receipt
            if let latest = root["latest_receipt_info"] as? [Any], latest.count > 2 {
                root["latest_receipt_info"] = Array(latest[2...] + latest[..<2])
            } else {
                root["latest_receipt_info"] = (root["latest_receipt_info"] as? [Any]).map { Array($0.reversed()) }
            }
            let shuffled = try VerifyReceiptResponse.parse(try Samples.jsonBytes(root), observedAtMs: observedAt)
            XCTAssertEqual(shuffled, original, name)
        }
    }
}
