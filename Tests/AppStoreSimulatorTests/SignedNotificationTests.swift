import AppStore
import AppStoreSimulator
import Entitlements
import Foundation
import JWS
import XCTest

/// What the simulator sends must pass the service's own verifier and decoders.
final class SignedNotificationTests: XCTestCase {
    private typealias F = SimulationFixture

    private func simulator(_ version: NotificationComposer.Version) throws -> AppStoreSimulator {
        try AppStoreSimulator.withOwnPKI(
            configuration: .init(bundleID: "com.example.app", sharedSecret: F.secret),
            notifications: version, delivery: nil, wallClock: { F.start })
    }

    private func composer(_ version: NotificationComposer.Version) throws -> (NotificationComposer, JWSVerifier) {
        let authority = try SigningAuthority(
            notBeforeMs: F.start - 5 * 365 * F.day, notAfterMs: F.start + 25 * 365 * F.day)
        let composer = NotificationComposer(
            version: version, bundleID: "com.example.app", bundleVersion: "1",
            sharedSecret: F.secret, signer: authority.signer)
        return (composer, JWSVerifier(trustedRoots: try TrustedRoots(pem: authority.rootPEM)))
    }

    func testV2NotificationVerifiesAndDecodes() throws {
        var fixture = F()
        let (first, _) = try fixture.subscribe()
        // A year on: signedDate follows the simulated clock, and the chain is valid then too.
        let events = try fixture.simulation.advance(byMs: 365 * F.day).events
        let (composer, verifier) = try composer(.v2)
        let event = try XCTUnwrap(events.last)
        let body = try XCTUnwrap(try composer.body(for: event))
        let outer = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body)) as? [String: String])
        let signedPayload = try XCTUnwrap(outer["signedPayload"])

        let payload = try NotificationV2Payload.parse(
            try verifier.verify(signedPayload, at: event.signedDateMs).payload)
        XCTAssertEqual(payload.notificationType, "DID_RENEW")
        XCTAssertEqual(payload.notificationUUID, event.notificationUUID)
        XCTAssertEqual(payload.signedDateMs, F.start + 12 * F.month)
        let data = try XCTUnwrap(payload.data)
        XCTAssertEqual(data.bundleID, "com.example.app")
        XCTAssertEqual(data.status, 1)

        let signedTransaction = try XCTUnwrap(data.signedTransactionInfo)
        let transaction = try JWSTransactionPayload.parse(
            try verifier.verify(signedTransaction, at: payload.signedDateMs).payload)
        XCTAssertEqual(transaction.originalTransactionID, first.transactionID)
        XCTAssertEqual(transaction.transaction, event.transaction)
        XCTAssertEqual(transaction.transactionReason, "RENEWAL")
        let signedRenewal = try XCTUnwrap(data.signedRenewalInfo)
        let renewal = try JWSRenewalInfoPayload.parse(
            try verifier.verify(signedRenewal, at: payload.signedDateMs).payload)
        XCTAssertEqual(renewal.renewalInfo, event.renewalInfo)
        XCTAssertEqual(renewal.productID, "pro.monthly")
    }

    func testPurchaseAnswerCarriesAVerifiableSignedTransaction() throws {
        let simulator = try simulator(.v2)
        let pem = simulator.rootCertificatePEM
        let verifier = JWSVerifier(trustedRoots: try TrustedRoots(pem: pem))
        let router = simulator.router()
        let writer = RecordingWriter()
        router.handle(
            HTTPRequestFactory.post("/control/purchase", ["product_id": "pro.monthly", "period": "7d", "trial": true]),
            writer: writer)
        let answer = try XCTUnwrap(writer.json)
        XCTAssertEqual(writer.status, 200)
        let signed = try XCTUnwrap(answer["signed_transaction"] as? String)
        let payload = try JWSTransactionPayload.parse(try verifier.verify(signed, at: F.start).payload)
        XCTAssertEqual(payload.transactionID, answer["transaction_id"] as? String)
        XCTAssertEqual(payload.expiresDateMs, F.start + 7 * F.day)
        XCTAssertEqual(payload.offerDiscountType, "FREE_TRIAL")
        XCTAssertEqual(payload.declaredProductType, .autoRenewable)
        XCTAssertNotNil(answer["receipt_data"] as? String)
    }

    func testV1NotificationCarriesTheSharedSecretAndUnifiedReceipt() throws {
        var fixture = F()
        let (first, _) = try fixture.subscribe()
        let refund = try fixture.simulation.refund(transactionID: first.transactionID)
        let (composer, _) = try composer(.v1)
        let body = try XCTUnwrap(try composer.body(for: try XCTUnwrap(refund.events.first)))
        let notification = try NotificationV1.parse(body, receivedAtMs: F.start)
        XCTAssertEqual(notification.notificationType, "CANCEL")
        XCTAssertEqual(notification.password, F.secret)
        XCTAssertEqual(notification.bundleID, "com.example.app")
        XCTAssertEqual(notification.cancellationDateMs, F.start)
        XCTAssertEqual(notification.eventKind, .refund)
        XCTAssertEqual(notification.transactions.map(\.transactionID), [first.transactionID])
        XCTAssertEqual(notification.renewalInfos.count, 1)
        XCTAssertFalse(notification.latestReceipt?.isEmpty ?? true)
    }

    func testV1HasNoNotificationForRefundReversal() throws {
        var fixture = F()
        let (first, _) = try fixture.subscribe()
        _ = try fixture.simulation.refund(transactionID: first.transactionID)
        let reversal = try XCTUnwrap(
            try fixture.simulation.reverseRefund(transactionID: first.transactionID).events.first)
        XCTAssertNil(try composer(.v1).0.body(for: reversal))
        XCTAssertNotNil(try composer(.v2).0.body(for: reversal))
    }

    func testVerifyReceiptOverTheRouter() throws {
        let router = try simulator(.v2).router()
        let purchase = RecordingWriter()
        router.handle(
            HTTPRequestFactory.post("/control/purchase", ["product_id": "pro.monthly", "environment": "sandbox"]),
            writer: purchase)
        let receipt = try XCTUnwrap(purchase.json?["receipt_data"] as? String)
        for (path, expected) in [("/production/verifyReceipt", 21007), ("/sandbox/verifyReceipt", 0)] {
            let writer = RecordingWriter()
            router.handle(
                HTTPRequestFactory.post(path, ["receipt-data": receipt, "password": F.secret]), writer: writer)
            XCTAssertEqual(writer.json?["status"] as? Int, expected, path)
        }
        let missing = RecordingWriter()
        router.handle(HTTPRequestFactory.post("/control/renew", ["original_transaction_id": "404"]), writer: missing)
        XCTAssertEqual(missing.status, 404)
    }
}
