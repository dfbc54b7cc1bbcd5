import AppStore
import Entitlements
import Foundation
import XCTest

/// The encoders against the decoders the service uses: what the simulator writes must read
/// back as the very facts it was written from.
final class EncodingRoundTripTests: XCTestCase {
    private let t0: Int64 = 1_750_000_000_000
    private let month: Int64 = 30 * 86_400_000

    private func chain(environment: Environment = .sandbox) -> [Transaction] {
        let first = Transaction(
            transactionID: "2000000000000001", originalTransactionID: "2000000000000001",
            productID: "pro.monthly", purchaseDateMs: t0, expiresDateMs: t0 + month,
            isTrialPeriod: true, subscriptionGroupIdentifier: "20000001",
            webOrderLineItemID: "2000000000000101", inAppOwnershipType: "PURCHASED",
            environment: environment)
        var renewal = first
        renewal.transactionID = "2000000000000002"
        renewal.purchaseDateMs = t0 + month
        renewal.expiresDateMs = t0 + 2 * month
        renewal.isTrialPeriod = false
        renewal.cancellationDateMs = t0 + month + 5
        renewal.webOrderLineItemID = "2000000000000102"
        let coins = Transaction(
            transactionID: "9007199254740993", originalTransactionID: "9007199254740993",
            productID: "coins.100", purchaseDateMs: t0 + 7, inAppOwnershipType: "PURCHASED",
            appAccountToken: "7E3FB20B-4CDB-47CC-936D-99D65F608138", environment: environment)
        return [first, renewal, coins]
    }

    private func renewal(signedAt: Int64) -> RenewalInfo {
        RenewalInfo(originalTransactionID: "2000000000000001", autoRenewStatus: false,
                    autoRenewProductID: "pro.yearly", isInBillingRetryPeriod: true,
                    gracePeriodExpiresDateMs: t0 + month + 16 * 86_400_000, expirationIntent: 2,
                    signedDateMs: signedAt)
    }

    func testVerifyReceiptRoundTrip() throws {
        let transactions = chain()
        let response = VerifyReceiptResponse(
            status: 0, environment: .sandbox, bundleID: "com.example.app",
            transactions: transactions, renewalInfos: [renewal(signedAt: 42)], latestReceipt: "TUlJ/+a=")
        let body = response.jsonBody(inApp: [transactions[0]], receiptCreationDateMs: t0, requestDateMs: t0 + 9)
        let parsed = try VerifyReceiptResponse.parse(body, observedAtMs: 42)
        XCTAssertEqual(parsed, response)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let receipt = try XCTUnwrap(json["receipt"] as? [String: Any])
        XCTAssertEqual((receipt["in_app"] as? [Any])?.count, 1)
        XCTAssertEqual(receipt["receipt_type"] as? String, "ProductionSandbox")
        let pending = try XCTUnwrap((json["pending_renewal_info"] as? [[String: Any]])?.first)
        XCTAssertEqual(pending["auto_renew_status"] as? String, "0")
        XCTAssertEqual(pending["product_id"] as? String, "pro.monthly")
        let refunded = try XCTUnwrap((json["latest_receipt_info"] as? [[String: Any]])?
            .first { $0["transaction_id"] as? String == "2000000000000002" })
        XCTAssertEqual(refunded["cancellation_reason"] as? String, "0")
        XCTAssertEqual(refunded["purchase_date"] as? String, "2025-07-15 15:06:40 Etc/GMT")
    }

    func testVerifyReceiptWithoutPasswordHasOnlyInApp() throws {
        let transactions = chain(environment: .production)
        let response = VerifyReceiptResponse(status: 0, environment: .production, bundleID: "b")
        let body = response.jsonBody(inApp: transactions)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        XCTAssertNil(json["latest_receipt_info"])
        XCTAssertNil(json["pending_renewal_info"])
        XCTAssertEqual(try VerifyReceiptResponse.parse(body, observedAtMs: 0).transactions, transactions)
    }

    func testErrorStatusCarriesOnlyTheStatus() throws {
        let body = VerifyReceiptResponse(status: 21007).jsonBody()
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "{\"status\":21007}")
        XCTAssertEqual(try VerifyReceiptResponse.parse(body, observedAtMs: 0).status, 21007)
    }

    func testNotificationV1RoundTrip() throws {
        let notification = NotificationV1(
            notificationType: "CANCEL", password: "s3cret\"/", bundleID: "com.example.app", bundleVersion: "7",
            environment: .sandbox, originalTransactionID: "2000000000000001", autoRenewStatus: false,
            autoRenewProductID: "pro.yearly", cancellationDateMs: t0 + month + 5,
            transactions: chain(), renewalInfos: [renewal(signedAt: 99)], latestReceipt: "abc=", unifiedReceiptStatus: 0
        )
        let parsed = try NotificationV1.parse(notification.jsonBody(), receivedAtMs: 99)
        XCTAssertEqual(parsed, notification)
        XCTAssertEqual(parsed.eventKind, .refund)
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(notification.jsonBody())) as? [String: Any])
        XCTAssertEqual(json["environment"] as? String, "Sandbox")
        XCTAssertEqual(json["auto_renew_status"] as? String, "false")
    }

    func testNotificationV2PayloadRoundTrip() throws {
        let data = NotificationV2Payload.Data(
            bundleID: "com.example.app", environment: .production, appAppleID: "1234",
            bundleVersion: "7", signedTransactionInfo: "a.b.c", signedRenewalInfo: "d.e.f", status: 4)
        let payload = NotificationV2Payload(
            notificationUUID: "6A1B4C1F-0000-4000-8000-000000000001", notificationType: "DID_FAIL_TO_RENEW",
            subtype: "GRACE_PERIOD", signedDateMs: t0, data: data)
        let parsed = try NotificationV2Payload.parse(payload.jsonBody())
        XCTAssertEqual(parsed, payload)
        XCTAssertEqual(parsed.action, .record(.gracePeriod))
        let summary = NotificationV2Payload(notificationUUID: "u", notificationType: "RENEWAL_EXTENSION",
                                            subtype: "SUMMARY", signedDateMs: t0, hasSummary: true)
        XCTAssertEqual(try NotificationV2Payload.parse(summary.jsonBody()), summary)
    }

    func testTransactionPayloadRoundTrip() throws {
        var transactions = chain(environment: .production)
        transactions[0].declaredProductType = .autoRenewable
        transactions[1].declaredProductType = .autoRenewable
        transactions[2].declaredProductType = .consumable
        var upgraded = transactions[1]
        upgraded.cancellationDateMs = t0 + month + 9
        upgraded.isUpgraded = true
        for transaction in transactions + [upgraded] {
            let payload = JWSTransactionPayload(
                transaction: transaction, bundleID: "com.example.app", signedDateMs: t0 + 1)
            let parsed = try JWSTransactionPayload.parse(payload.jsonBody())
            XCTAssertEqual(parsed, payload)
            var expected = transaction
            // StoreKit 2 has one intro-offer flag: a free trial reads back as both flags set.
            expected.isInIntroOfferPeriod = transaction.isTrialPeriod || transaction.isInIntroOfferPeriod
            // An upgrade is not a revocation: StoreKit 2 writes isUpgraded without revocationDate.
            if transaction.isUpgraded { expected.cancellationDateMs = nil }
            XCTAssertEqual(parsed.transaction, expected)
        }
        XCTAssertEqual(
            JWSTransactionPayload(transaction: transactions[1], bundleID: nil, signedDateMs: 0).transactionReason,
            "RENEWAL")
    }

    func testTransactionPriceReadsApplesMilliUnitsAndCurrency() throws {
        var payload = JWSTransactionPayload(transaction: chain(environment: .production)[1],
                                            bundleID: "com.example.app", signedDateMs: t0 + 1)
        XCTAssertNil(try JWSTransactionPayload.parse(payload.jsonBody()).transactionPrice, "no price sent")
        payload.price = 9_990
        payload.currency = "USD"
        let parsed = try JWSTransactionPayload.parse(payload.jsonBody())
        XCTAssertEqual(parsed, payload)
        XCTAssertEqual(parsed.transactionPrice,
                       TransactionPrice(transactionID: payload.transactionID, milliUnits: 9_990, currency: "USD"))
        payload.currency = nil
        XCTAssertNil(try JWSTransactionPayload.parse(payload.jsonBody()).transactionPrice, "a price needs its currency")
    }

    func testRenewalInfoPayloadRoundTrip() throws {
        let info = renewal(signedAt: t0 + 3)
        let payload = JWSRenewalInfoPayload(renewalInfo: info, productID: "pro.monthly", environment: .sandbox,
                                            recentSubscriptionStartDateMs: t0, renewalDateMs: t0 + month,
                                            appAccountToken: "0c2b7f9e-3f4a-4d8e-9a61-5f1d2b3c4e5f")
        let parsed = try JWSRenewalInfoPayload.parse(payload.jsonBody())
        XCTAssertEqual(parsed, payload)
        XCTAssertEqual(parsed.appAccountToken, "0c2b7f9e-3f4a-4d8e-9a61-5f1d2b3c4e5f")
        XCTAssertEqual(parsed.renewalInfo, info)
    }
}
