import AppStore
import Entitlements
import XCTest

/// V1 notifications: the shared sample, the type table, and the cases that need context.
final class NotificationV1Tests: XCTestCase {
    func testDidRenewSample() throws {
        let notification = try NotificationV1.parse(
            try Samples.bytes("notification-v1-did-renew-sandbox.json"), receivedAtMs: 99)
        XCTAssertEqual(notification.notificationType, "DID_RENEW")
        XCTAssertEqual(notification.password, "SHARED-SECRET")
        XCTAssertEqual(notification.password, "SHARED-SECRET")
        XCTAssertEqual(notification.bundleID, "com.example.app")
        XCTAssertEqual(notification.bundleVersion, "2")
        XCTAssertEqual(notification.environment, .sandbox)
        XCTAssertEqual(notification.originalTransactionID, "2000000080000001")
        XCTAssertEqual(notification.autoRenewStatus, true)
        XCTAssertEqual(notification.autoRenewProductID, "com.example.app.vip.monthly")
        XCTAssertEqual(notification.latestReceipt, "BASE64-LATEST-RECEIPT")
        XCTAssertEqual(notification.unifiedReceiptStatus, 0)
        XCTAssertEqual(notification.transactions.map(\.transactionID), ["2000000080000002", "2000000080000003"])
        XCTAssertEqual(notification.transactions.last, Transaction(
            transactionID: "2000000080000003", originalTransactionID: "2000000080000001",
            productID: "com.example.app.vip.monthly", purchaseDateMs: 1_654_681_915_000,
            originalPurchaseDateMs: 1_654_662_980_000, expiresDateMs: 1_654_682_095_000,
            subscriptionGroupIdentifier: "20900001", webOrderLineItemID: "2000000030000003",
            inAppOwnershipType: "PURCHASED", environment: .sandbox))
        XCTAssertEqual(notification.renewalInfos, [RenewalInfo(
            originalTransactionID: "2000000080000001", autoRenewStatus: true,
            autoRenewProductID: "com.example.app.vip.monthly", signedDateMs: 99)])
        XCTAssertEqual(notification.eventKind, .renewal)
        XCTAssertEqual(notification.subjectTransaction?.transactionID, "2000000080000003")
    }

    /// A V1 body with one chain: an older cancelled period and a newer one.
    private func body(
        type: String, topLevel: String = "", newest: String = "", pending: String = ""
    ) -> [UInt8] {
        let older = #"{"transaction_id":"11","original_transaction_id":"10","product_id":"p","#
            + #""purchase_date_ms":"100","expires_date_ms":"200","cancellation_date_ms":"150"}"#
        let newer = #"{"transaction_id":"12","original_transaction_id":"10","product_id":"p","#
            + #""purchase_date_ms":"200","expires_date_ms":"300"\#(newest)}"#
        return (#"{"notification_type":"\#(type)","environment":"PROD","password":"pw","#
            + #""original_transaction_id":10\#(topLevel),"unified_receipt":{"status":0,"#
            + #""latest_receipt_info":[\#(newer),\#(older)],"#
            + #""pending_renewal_info":[{"original_transaction_id":"10","auto_renew_status":"1"\#(pending)}]}}"#)
            .bytes
    }

    func testTypeTable() throws {
        let table: [(type: String, topLevel: String, newest: String, pending: String, want: HistoryEvent.Kind)] = [
            ("INITIAL_BUY", "", "", "", .purchase),
            ("DID_RENEW", "", "", "", .renewal),
            ("INTERACTIVE_RENEWAL", "", "", "", .renewal),
            ("DID_RECOVER", "", "", "", .billingRecovered),
            ("RENEWAL", "", "", "", .billingRecovered),
            ("DID_FAIL_TO_RENEW", "", "", "", .billingRetry),
            ("DID_FAIL_TO_RENEW", "", "", #","grace_period_expires_date_ms":"400""#, .gracePeriod),
            ("CANCEL", #","cancellation_date_ms":"250""#, "", "", .refund),
            ("CANCEL", "", #","cancellation_date_ms":"250""#, "", .refund),
            ("CANCEL", "", #","cancellation_date_ms":"250","is_upgraded":"true""#, "", .productChange),
            ("REFUND", "", "", "", .refund),
            ("REVOKE", "", "", "", .revoke),
            ("DID_CHANGE_RENEWAL_STATUS", #","auto_renew_status":"true""#, "", "", .autoRenewEnabled),
            ("DID_CHANGE_RENEWAL_STATUS", #","auto_renew_status":"false""#, "", "", .autoRenewDisabled),
            ("DID_CHANGE_RENEWAL_STATUS", "", "", "", .autoRenewEnabled),
            ("DID_CHANGE_RENEWAL_PREF", "", "", "", .productChange),
            ("PRICE_INCREASE_CONSENT", "", "", "", .other),
            ("CONSUMPTION_REQUEST", "", "", "", .consumptionRequest),
            ("SOMETHING_APPLE_ADDS_NEXT_YEAR", "", "", "", .other),
        ]
        for row in table {
            let notification = try NotificationV1.parse(
                body(type: row.type, topLevel: row.topLevel, newest: row.newest, pending: row.pending),
                receivedAtMs: 0)
            XCTAssertEqual(notification.eventKind, row.want, "\(row.type) \(row.topLevel)\(row.newest)\(row.pending)")
            XCTAssertEqual(notification.notificationType, row.type, "the raw name is kept")
            XCTAssertEqual(notification.environment, .production, "PROD")
        }
    }

    /// CANCEL without a cancellation date anywhere is not a refund; the older cancelled period
    /// of the chain would be, but CANCEL refers to the newest period carrying a date.
    func testCancelWithoutCancellationDate() throws {
        let withoutDates = (#"{"notification_type":"CANCEL","environment":"Sandbox","#
            + #""unified_receipt":{"latest_receipt_info":[{"transaction_id":"1","product_id":"p","#
            + #""purchase_date_ms":"1"}]}}"#).bytes
        XCTAssertEqual(try NotificationV1.parse(withoutDates, receivedAtMs: 0).eventKind, .other)

        let refundOfOlder = try NotificationV1.parse(body(type: "CANCEL"), receivedAtMs: 0)
        XCTAssertEqual(refundOfOlder.subjectTransaction?.transactionID, "11")
        XCTAssertEqual(refundOfOlder.eventKind, .refund)
        XCTAssertEqual(try NotificationV1.parse(body(type: "DID_RENEW"), receivedAtMs: 0)
            .subjectTransaction?.transactionID, "12")
    }

    /// INTERACTIVE_RENEWAL after an upgrade names the upgrade (as V2 UPGRADE does); without one
    /// it is the subject's renewal (a resubscription).
    func testInteractiveRenewalReportsTheUpgradeItFollows() throws {
        let upgraded = try NotificationV1.parse(
            String(decoding: body(type: "INTERACTIVE_RENEWAL"), as: UTF8.self).replacing(
                #""cancellation_date_ms":"150""#, with: #""cancellation_date_ms":"200","is_upgraded":"true""#).bytes,
            receivedAtMs: 0)
        XCTAssertEqual(upgraded.historyReport, NotificationReport(
            appleNotificationType: "INTERACTIVE_RENEWAL", subjectTransactionID: "12", kind: .productChange,
            productChange: .upgrade))
        XCTAssertEqual(upgraded.eventKind, .renewal, "no event of its own: the store derives and names them")
        let resubscribed = try NotificationV1.parse(body(type: "INTERACTIVE_RENEWAL"), receivedAtMs: 0)
        XCTAssertEqual(resubscribed.historyReport, NotificationReport(
            appleNotificationType: "INTERACTIVE_RENEWAL", subjectTransactionID: "12", kind: .renewal))
    }

    func testPureMapping() {
        XCTAssertEqual(NotificationV1.eventKind(
            notificationType: "DID_CHANGE_RENEWAL_STATUS", autoRenewStatus: nil,
            cancellationDateMs: nil, subjectIsUpgraded: false, opensGracePeriod: false), .other)
        XCTAssertEqual(NotificationV1.eventKind(
            notificationType: "CANCEL", autoRenewStatus: nil, cancellationDateMs: 5,
            subjectIsUpgraded: false, opensGracePeriod: false), .refund)
    }

    func testEnvironmentAndRequiredFields() throws {
        let fromUnified = #"{"notification_type":"DID_RENEW","unified_receipt":{"environment":"Sandbox"}}"#
        XCTAssertEqual(try NotificationV1.parse(fromUnified.bytes, receivedAtMs: 0).environment, .sandbox)
        assertFormatError(.missingField, field: "environment") { () throws(AppStoreFormatError) in
            try NotificationV1.parse(#"{"notification_type":"DID_RENEW"}"#.bytes, receivedAtMs: 0)
        }
        assertFormatError(.missingField, field: "notification_type") { () throws(AppStoreFormatError) in
            try NotificationV1.parse(#"{"environment":"PROD"}"#.bytes, receivedAtMs: 0)
        }
        assertFormatError(.invalidValue, field: "auto_renew_status") { () throws(AppStoreFormatError) in
            try NotificationV1.parse(
                #"{"notification_type":"X","environment":"PROD","auto_renew_status":"maybe"}"#.bytes,
                receivedAtMs: 0)
        }
        assertFormatError(.invalidValue, field: "unified_receipt.latest_receipt_info.purchase_date_ms") {
            () throws(AppStoreFormatError) in
            try NotificationV1.parse((#"{"notification_type":"X","environment":"PROD","unified_receipt":"#
                + #"{"latest_receipt_info":{"transaction_id":"1","product_id":"p","purchase_date_ms":"x"}}}"#)
                .bytes, receivedAtMs: 0)
        }
    }
}
