import AppStore
import Entitlements
import Foundation
import XCTest

/// V2 payloads decoded from the real Apple samples, and the type/subtype table.
final class NotificationV2Tests: XCTestCase {
    private struct Sample {
        var file: String
        var kind: String
        var payload: [String: Any]
    }

    private func samples(kind: String) throws -> [Sample] {
        let index = try XCTUnwrap(try Samples.jsonObject("real-apple-jws/index.json") as? [String: Any])
        let entries = try XCTUnwrap(index["samples"] as? [[String: Any]])
        return try entries.compactMap { entry in
            guard entry["kind"] as? String == kind else { return nil }
            return Sample(
                file: try XCTUnwrap(entry["file"] as? String), kind: kind,
                payload: try XCTUnwrap(entry["decodedPayload"] as? [String: Any]))
        }
    }

    /// The payload segment of a compact JWS, as the JWS module would hand it over.
    private func payloadBytes(ofJWS token: String) throws -> [UInt8] {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(segments.count, 3)
        var base64 = segments[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Array(try XCTUnwrap(Data(base64Encoded: base64)))
    }

    private func int64(_ value: Any?) -> Int64? {
        (value as? NSNumber).map { Int64($0.doubleValue.rounded(.towardZero)) }
    }

    /// Every field of the domain transaction against the sample's own JSON.
    private func assertTransaction(_ json: [String: Any], file: String) throws {
        let payload = try JWSTransactionPayload.parse(try Samples.jsonBytes(json))
        let transaction = payload.transaction
        XCTAssertEqual(transaction.transactionID, json["transactionId"] as? String, file)
        XCTAssertEqual(transaction.originalTransactionID, json["originalTransactionId"] as? String, file)
        XCTAssertEqual(transaction.webOrderLineItemID, json["webOrderLineItemId"] as? String, file)
        XCTAssertEqual(transaction.productID, json["productId"] as? String, file)
        XCTAssertEqual(transaction.subscriptionGroupIdentifier, json["subscriptionGroupIdentifier"] as? String, file)
        XCTAssertEqual(transaction.purchaseDateMs, int64(json["purchaseDate"]), file)
        XCTAssertEqual(transaction.originalPurchaseDateMs, int64(json["originalPurchaseDate"]), file)
        XCTAssertEqual(transaction.expiresDateMs, int64(json["expiresDate"]), file)
        XCTAssertEqual(transaction.cancellationDateMs, int64(json["revocationDate"]), file)
        XCTAssertEqual(transaction.appAccountToken, json["appAccountToken"] as? String, file)
        XCTAssertEqual(transaction.inAppOwnershipType, json["inAppOwnershipType"] as? String, file)
        XCTAssertEqual(transaction.isInIntroOfferPeriod, (json["offerType"] as? Int) == 1, file)
        XCTAssertFalse(transaction.isTrialPeriod, "no sample names FREE_TRIAL")
        XCTAssertEqual(transaction.isUpgraded, json["isUpgraded"] as? Bool ?? false, file)
        XCTAssertEqual(payload.bundleID, json["bundleId"] as? String, file)
        XCTAssertEqual(payload.signedDateMs, int64(json["signedDate"]), file)
        let environment = json["environment"] as? String
        XCTAssertEqual(transaction.environment, environment == "Production" ? .production : .sandbox, file)
        let types: [String: ProductType] = [
            "Auto-Renewable Subscription": .autoRenewable, "Consumable": .consumable,
            "Non-Consumable": .nonConsumable, "Non-Renewing Subscription": .nonRenewing,
        ]
        XCTAssertEqual(transaction.declaredProductType, types[json["type"] as? String ?? ""], file)
    }

    func testRealTransactions() throws {
        let transactions = try samples(kind: "transaction")
        XCTAssertEqual(transactions.count, 4)
        for sample in transactions {
            try assertTransaction(sample.payload, file: sample.file)
        }
    }

    /// Spot checks that do not restate the generic mapping.
    func testRealTransactionSpecifics() throws {
        let byFile = Dictionary(uniqueKeysWithValues: try samples(kind: "transaction").map { ($0.file, $0) })
        let consumable = try JWSTransactionPayload.parse(
            try Samples.jsonBytes(try XCTUnwrap(byFile["transaction-tx-1.jws"]).payload)).transaction
        XCTAssertEqual(consumable.declaredProductType, .consumable)
        XCTAssertNil(consumable.expiresDateMs)
        XCTAssertEqual(consumable.environment, .sandbox)

        let intro = try JWSTransactionPayload.parse(
            try Samples.jsonBytes(try XCTUnwrap(byFile["transaction-tx-2.jws"]).payload))
        XCTAssertEqual(intro.offerType, 1)
        XCTAssertTrue(intro.transaction.isInIntroOfferPeriod)
        XCTAssertEqual(intro.transaction.appAccountToken, "207262da-1ac8-4e0a-a399-5aa62a82800f")
        XCTAssertEqual(intro.transaction.expiresDateMs, 1_666_615_993_000)

        // Xcode StoreKit testing: fractional milliseconds truncate, the environment is not production.
        let xcode = try JWSTransactionPayload.parse(
            try Samples.jsonBytes(try XCTUnwrap(byFile["transaction-tx-4.jws"]).payload))
        XCTAssertEqual(xcode.transaction.purchaseDateMs, 1_697_679_936_049)
        XCTAssertEqual(xcode.signedDateMs, 1_697_679_936_056)
        XCTAssertEqual(xcode.transaction.environment, .sandbox)
        XCTAssertEqual(xcode.transaction.transactionID, "0")
    }

    /// The payload read straight out of the .jws file equals the index's decoded copy.
    func testJWSFileSegmentDecodes() throws {
        let token = String(decoding: try Samples.bytes("real-apple-jws/transaction-tx-3.jws"), as: UTF8.self)
        let transaction = try JWSTransactionPayload.parse(try payloadBytes(ofJWS: token)).transaction
        XCTAssertEqual(transaction, Transaction(
            transactionID: "2000000191896422", originalTransactionID: "2000000184445477",
            productID: "Com.VoiceRecording.Telephone.103", purchaseDateMs: 1_667_389_704_000,
            originalPurchaseDateMs: 1_666_615_875_000, expiresDateMs: 1_667_391_504_000,
            subscriptionGroupIdentifier: "21024612", webOrderLineItemID: "2000000014019133",
            inAppOwnershipType: "PURCHASED", appAccountToken: "e4b2c0ab-07a9-4e12-91c9-a76d7d51b72e",
            environment: .sandbox, declaredProductType: .autoRenewable))
    }

    func testRealRenewalInfos() throws {
        let expected: [String: RenewalInfo] = [
            "renewal-tx-1.jws": RenewalInfo(
                originalTransactionID: "2000000335310644", autoRenewStatus: true,
                autoRenewProductID: "co.ringalarm.swtich.quarterly2", signedDateMs: 1_684_822_778_492),
            "renewal-tx-2.jws": RenewalInfo(
                originalTransactionID: "2000000184445477", autoRenewStatus: false,
                autoRenewProductID: "Com.VoiceRecording.Telephone.103", isInBillingRetryPeriod: false,
                expirationIntent: 1, signedDateMs: 1_667_561_039_251),
        ]
        let renewals = try samples(kind: "renewal")
        XCTAssertEqual(renewals.count, expected.count)
        for sample in renewals {
            let payload = try JWSRenewalInfoPayload.parse(try Samples.jsonBytes(sample.payload))
            XCTAssertEqual(payload.renewalInfo, expected[sample.file], sample.file)
            XCTAssertEqual(payload.environment, .sandbox)
        }
    }

    func testRealNotifications() throws {
        let notifications = try samples(kind: "notification")
        XCTAssertEqual(notifications.count, 5)
        for sample in notifications {
            let json = sample.payload
            let payload = try NotificationV2Payload.parse(try Samples.jsonBytes(json))
            let data = try XCTUnwrap(json["data"] as? [String: Any])
            XCTAssertEqual(payload.notificationType, json["notificationType"] as? String, sample.file)
            XCTAssertEqual(payload.subtype, json["subtype"] as? String, sample.file)
            XCTAssertEqual(payload.notificationUUID, json["notificationUUID"] as? String, sample.file)
            XCTAssertEqual(payload.version, "2.0")
            XCTAssertEqual(payload.signedDateMs, int64(json["signedDate"]), sample.file)
            XCTAssertFalse(payload.hasSummary)
            XCTAssertEqual(payload.data?.bundleID, data["bundleId"] as? String, sample.file)
            XCTAssertEqual(payload.data?.appAppleID, (data["appAppleId"] as? NSNumber)?.stringValue, sample.file)
            XCTAssertEqual(payload.data?.bundleVersion, data["bundleVersion"] as? String, sample.file)
            XCTAssertEqual(payload.data?.status, data["status"] as? Int, sample.file)
            XCTAssertEqual(payload.data?.environment,
                           data["environment"] as? String == "Production" ? .production : .sandbox)
            XCTAssertEqual(payload.data?.signedTransactionInfo, data["signedTransactionInfo"] as? String)
            XCTAssertEqual(payload.data?.signedRenewalInfo, data["signedRenewalInfo"] as? String)
            // The nested tokens decode through the same mapping.
            if let token = payload.data?.signedTransactionInfo {
                let nested = try JSONSerialization.jsonObject(with: Data(try payloadBytes(ofJWS: token)))
                try assertTransaction(try XCTUnwrap(nested as? [String: Any]), file: sample.file)
            }
            if let token = payload.data?.signedRenewalInfo {
                let renewal = try JWSRenewalInfoPayload.parse(try payloadBytes(ofJWS: token)).renewalInfo
                XCTAssertEqual(renewal.originalTransactionID, payload.data.flatMap { $0.signedTransactionInfo }
                    .flatMap { try? JWSTransactionPayload.parse(try payloadBytes(ofJWS: $0)) }?.originalTransactionID)
                XCTAssertTrue(renewal.autoRenewStatus, sample.file)
            }
        }
        let subscribed = try XCTUnwrap(notifications.first { $0.file == "notification-SUBSCRIBED-1.jws" })
        let payload = try NotificationV2Payload.parse(try Samples.jsonBytes(subscribed.payload))
        XCTAssertEqual(payload.data?.appAppleID, "6473983973")
        XCTAssertEqual(payload.action, .record(.purchase))
        XCTAssertEqual(payload.appleNotificationType, "SUBSCRIBED/\(try XCTUnwrap(payload.subtype))",
                       "history names a V2 notification by type and subtype")
        for sample in notifications {
            let json = sample.payload
            let payload = try NotificationV2Payload.parse(try Samples.jsonBytes(json))
            let subtype = json["subtype"] as? String
            XCTAssertEqual(payload.appleNotificationType,
                           subtype.map { "\(payload.notificationType)/\($0)" } ?? payload.notificationType,
                           sample.file)
        }
    }

    func testTypeTable() {
        let table: [(String, String?, NotificationV2Action)] = [
            ("SUBSCRIBED", "INITIAL_BUY", .record(.purchase)),
            ("SUBSCRIBED", "RESUBSCRIBE", .record(.purchase)),
            ("DID_RENEW", nil, .record(.renewal)),
            ("DID_RENEW", "BILLING_RECOVERY", .record(.billingRecovered)),
            ("DID_FAIL_TO_RENEW", nil, .record(.billingRetry)),
            ("DID_FAIL_TO_RENEW", "GRACE_PERIOD", .record(.gracePeriod)),
            ("GRACE_PERIOD_EXPIRED", nil, .record(.billingRetry)),
            ("EXPIRED", "VOLUNTARY", .record(.expired)),
            ("EXPIRED", "BILLING_RETRY", .record(.expired)),
            ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", .record(.autoRenewEnabled)),
            ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", .record(.autoRenewDisabled)),
            ("DID_CHANGE_RENEWAL_STATUS", nil, .record(.other)),
            ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", .record(.productChange)),
            ("DID_CHANGE_RENEWAL_PREF", "UPGRADE", .record(.productChange)),
            ("REFUND", nil, .record(.refund)),
            ("REVOKE", nil, .record(.revoke)),
            ("REFUND_REVERSED", nil, .reverseRefund),
            ("TEST", nil, .ignore),
            ("OFFER_REDEEMED", "UPGRADE", .record(.other)),
            ("RENEWAL_EXTENDED", nil, .record(.renewalExtended)),
            ("RENEWAL_EXTENSION", "FAILURE", .record(.renewalExtended)),
            ("CONSUMPTION_REQUEST", nil, .record(.consumptionRequest)),
            ("REFUND_DECLINED", nil, .record(.refundDeclined)),
            ("A_TYPE_FROM_NEXT_YEAR", "WHATEVER", .record(.other)),
        ]
        for (type, subtype, want) in table {
            XCTAssertEqual(NotificationV2Action(notificationType: type, subtype: subtype), want,
                           "\(type)/\(subtype ?? "-")")
        }
    }

    func testMalformedPayloads() {
        let table: [(String, AppStoreFormatError.Code, String)] = [
            (#"{"notificationUUID":"u","signedDate":1}"#, .missingField, "notificationType"),
            (#"{"notificationType":"TEST","signedDate":1}"#, .missingField, "notificationUUID"),
            (#"{"notificationType":"TEST","notificationUUID":"u","signedDate":"x"}"#, .invalidValue, "signedDate"),
            (#"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"data":{"environment":"Staging"}}"#,
             .invalidValue, "data.environment"),
            (#"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"data":{}}"#,
             .missingField, "data.environment"),
            (#"{"notificationType":"X","notificationUUID":"u","signedDate":1,"summary":3}"#, .invalidValue, "summary"),
        ]
        for (body, code, field) in table {
            assertFormatError(code, field: field) { () throws(AppStoreFormatError) in
                try NotificationV2Payload.parse(body.bytes)
            }
        }
        assertFormatError(.missingField, field: "signedDate") { () throws(AppStoreFormatError) in
            try JWSTransactionPayload.parse(
                (#"{"transactionId":"1","originalTransactionId":"1","productId":"p","purchaseDate":1,"#
                    + #""environment":"Sandbox"}"#).bytes)
        }
        assertFormatError(.invalidValue, field: "autoRenewStatus") { () throws(AppStoreFormatError) in
            try JWSRenewalInfoPayload.parse(
                #"{"originalTransactionId":"1","autoRenewStatus":2,"environment":"Sandbox","signedDate":1}"#.bytes)
        }
        // The environment is checked before any other field, so it is the one a bare object names.
        assertFormatError(.missingField, field: "environment") { () throws(AppStoreFormatError) in
            try JWSTransactionPayload.parse("{}".bytes)
        }
        assertFormatError(.missingField, field: "environment") { () throws(AppStoreFormatError) in
            try JWSRenewalInfoPayload.parse("{}".bytes)
        }
    }

    func testSummaryAndFreeTrial() throws {
        let summary = #"{"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","notificationUUID":"u","#
            + #""signedDate":5,"summary":{"requestIdentifier":"r","succeededCount":3}}"#
        let payload = try NotificationV2Payload.parse(summary.bytes)
        XCTAssertTrue(payload.hasSummary)
        XCTAssertNil(payload.data)

        let trial = #"{"transactionId":"2","originalTransactionId":"2","productId":"p","purchaseDate":1,"#
            + #""expiresDate":2,"offerType":1,"offerDiscountType":"FREE_TRIAL","revocationDate":3,"#
            + #""isUpgraded":true,"environment":"Production","signedDate":4,"type":"Something New"}"#
        let transaction = try JWSTransactionPayload.parse(trial.bytes).transaction
        XCTAssertTrue(transaction.isTrialPeriod)
        XCTAssertTrue(transaction.isInIntroOfferPeriod)
        XCTAssertTrue(transaction.isUpgraded)
        XCTAssertEqual(transaction.cancellationDateMs, 3)
        XCTAssertEqual(transaction.environment, .production)
        XCTAssertNil(transaction.declaredProductType, "a type Apple adds later is left to the catalog")
    }
}
