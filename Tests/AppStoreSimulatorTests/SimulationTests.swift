import AppStore
import AppStoreSimulator
import Entitlements
import XCTest

/// Each control action: what verifyReceipt says afterwards, and what Apple would notify.
final class SimulationTests: XCTestCase {
    private typealias F = SimulationFixture

    func testPurchaseIssuesAReceiptAndSubscribed() throws {
        var fixture = F()
        let outcome = try fixture.simulation.purchase(PurchaseRequest(
            productID: "pro.monthly", type: .autoRenewable, periodMs: F.month, offer: .freeTrial, userToken: "alice"))
        XCTAssertEqual(kinds(outcome.events), ["SUBSCRIBED/INITIAL_BUY"])
        XCTAssertEqual(outcome.events.first?.v1NotificationType, "INITIAL_BUY")
        XCTAssertEqual(outcome.events.first?.status, 1)
        let response = try fixture.verify(try XCTUnwrap(outcome.receiptData))
        XCTAssertEqual(response.status, 0)
        XCTAssertEqual(response.bundleID, "com.example.app")
        let transaction = try XCTUnwrap(response.transactions.first)
        XCTAssertEqual(transaction.expiresDateMs, F.start + F.month)
        XCTAssertTrue(transaction.isTrialPeriod)
        XCTAssertEqual(response.renewalInfos.first?.autoRenewStatus, true)
    }

    func testRenewMovesTheClockToThePeriodEnd() throws {
        var fixture = F()
        let (first, receipt) = try fixture.subscribe()
        let outcome = try fixture.simulation.renew(originalTransactionID: first.transactionID)
        XCTAssertEqual(kinds(outcome.events), ["DID_RENEW"])
        XCTAssertEqual(outcome.events.first?.signedDateMs, F.start + F.month)
        XCTAssertEqual(fixture.simulation.nowMs, F.start + F.month)
        let renewal = try XCTUnwrap(outcome.transaction)
        XCTAssertEqual(renewal.purchaseDateMs, F.start + F.month)
        XCTAssertEqual(renewal.expiresDateMs, F.start + 2 * F.month)
        // The old receipt's in_app is frozen; latest_receipt_info has the renewal.
        let json = try fixture.verifyJSON(receipt)
        XCTAssertEqual(((json["receipt"] as? [String: Any])?["in_app"] as? [Any])?.count, 1)
        XCTAssertEqual((json["latest_receipt_info"] as? [Any])?.count, 2)
        XCTAssertNotEqual(json["latest_receipt"] as? String, receipt)
    }

    func testAdvanceRenewsAtEachPeriodEnd() throws {
        var fixture = F()
        let (_, receipt) = try fixture.subscribe()
        let outcome = try fixture.simulation.advance(byMs: 3 * F.month + F.day)
        XCTAssertEqual(kinds(outcome.events), ["DID_RENEW", "DID_RENEW", "DID_RENEW"])
        XCTAssertEqual(outcome.events.map(\.signedDateMs), [1, 2, 3].map { F.start + $0 * F.month })
        XCTAssertEqual(try fixture.verify(receipt).transactions.count, 4)
    }

    func testRealTimePassingRenewsToo() throws {
        var fixture = F()
        _ = try fixture.subscribe()
        XCTAssertEqual(kinds(fixture.simulation.observeWallClock(F.start + F.month - 1)), [])
        XCTAssertEqual(kinds(fixture.simulation.observeWallClock(F.start + F.month)), ["DID_RENEW"])
    }

    func testBillingFailureGraceExpiryAndRecovery() throws {
        var fixture = F()
        let (first, receipt) = try fixture.subscribe()
        let failed = try fixture.simulation.failBilling(originalTransactionID: first.transactionID, graceMs: 16 * F.day)
        XCTAssertEqual(kinds(failed.events), ["DID_FAIL_TO_RENEW/GRACE_PERIOD"])
        XCTAssertEqual(failed.events.first?.status, 4)
        var info = try XCTUnwrap(try fixture.verify(receipt).renewalInfos.first)
        XCTAssertTrue(info.isInBillingRetryPeriod)
        XCTAssertEqual(info.gracePeriodExpiresDateMs, F.start + F.month + 16 * F.day)
        XCTAssertEqual(info.expirationIntent, 2)

        let graceOver = try fixture.simulation.advance(byMs: 20 * F.day)
        XCTAssertEqual(kinds(graceOver.events), ["GRACE_PERIOD_EXPIRED"])
        XCTAssertEqual(graceOver.events.first?.status, 3)

        let recovered = try fixture.simulation.recoverBilling(originalTransactionID: first.transactionID)
        XCTAssertEqual(kinds(recovered.events), ["DID_RENEW/BILLING_RECOVERY"])
        XCTAssertEqual(recovered.events.first?.v1NotificationType, "DID_RECOVER")
        // After the grace period the new period starts at recovery.
        XCTAssertEqual(recovered.transaction?.purchaseDateMs, fixture.simulation.nowMs)
        info = try XCTUnwrap(try fixture.verify(receipt).renewalInfos.first)
        XCTAssertFalse(info.isInBillingRetryPeriod)
        XCTAssertNil(info.gracePeriodExpiresDateMs)
    }

    func testBillingRetryEndsInExpiry() throws {
        var fixture = F()
        let (first, _) = try fixture.subscribe()
        _ = try fixture.simulation.failBilling(originalTransactionID: first.transactionID, graceMs: nil)
        let outcome = try fixture.simulation.advance(byMs: 61 * F.day)
        XCTAssertEqual(kinds(outcome.events), ["EXPIRED/BILLING_RETRY"])
        XCTAssertThrowsError(try fixture.simulation.renew(originalTransactionID: first.transactionID))
    }

    func testAutoRenewOffThenExpiry() throws {
        var fixture = F()
        let (first, receipt) = try fixture.subscribe()
        let off = try fixture.simulation.setAutoRenew(originalTransactionID: first.transactionID, enabled: false)
        XCTAssertEqual(kinds(off.events), ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"])
        XCTAssertEqual(try fixture.verify(receipt).renewalInfos.first?.autoRenewStatus, false)
        XCTAssertEqual(kinds(try fixture.simulation.advance(byMs: F.month).events), ["EXPIRED/VOLUNTARY"])
        XCTAssertEqual(try fixture.verify(receipt).transactions.count, 1)
    }

    func testExpireTurnsRenewalOffAndLapses() throws {
        var fixture = F()
        let (first, _) = try fixture.subscribe()
        let outcome = try fixture.simulation.expire(originalTransactionID: first.transactionID)
        XCTAssertEqual(kinds(outcome.events), ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY"])
        XCTAssertEqual(outcome.events.last?.status, 2)
        XCTAssertEqual(fixture.simulation.nowMs, F.start + F.month)
    }

    func testUpgradeIsImmediateAndDowngradeWaitsForRenewal() throws {
        var fixture = F()
        let (first, receipt) = try fixture.subscribe("pro.monthly")
        let up = try fixture.simulation.changeProduct(
            originalTransactionID: first.transactionID, to: "max.monthly", downgrade: false)
        XCTAssertEqual(kinds(up.events), ["DID_CHANGE_RENEWAL_PREF/UPGRADE"])
        XCTAssertEqual(up.events.first?.v1NotificationType, "INTERACTIVE_RENEWAL")
        let transactions = try fixture.verify(receipt).transactions
        XCTAssertEqual(transactions.first { $0.transactionID == first.transactionID }?.isUpgraded, true)
        XCTAssertEqual(up.transaction?.productID, "max.monthly")

        let down = try fixture.simulation.changeProduct(
            originalTransactionID: first.transactionID, to: "pro.monthly", downgrade: true)
        XCTAssertEqual(kinds(down.events), ["DID_CHANGE_RENEWAL_PREF/DOWNGRADE"])
        XCTAssertEqual(try fixture.verify(receipt).renewalInfos.first?.autoRenewProductID, "pro.monthly")
        let renewed = try fixture.simulation.renew(originalTransactionID: first.transactionID)
        XCTAssertEqual(renewed.transaction?.productID, "pro.monthly")
    }

    func testRefundAndReversal() throws {
        var fixture = F()
        let (first, receipt) = try fixture.subscribe()
        let refund = try fixture.simulation.refund(transactionID: first.transactionID)
        XCTAssertEqual(kinds(refund.events), ["REFUND"])
        XCTAssertEqual(refund.events.first?.v1NotificationType, "CANCEL")
        XCTAssertEqual(refund.events.first?.status, 5)
        XCTAssertEqual(refund.events.first?.cancellationDateMs, F.start)
        XCTAssertEqual(try fixture.verify(receipt).transactions.first?.cancellationDateMs, F.start)
        XCTAssertEqual(
            kinds(try fixture.simulation.advance(byMs: 2 * F.month).events), [], "a revoked chain does not renew")

        var fresh = F()
        let (second, receipt2) = try fresh.subscribe()
        _ = try fresh.simulation.refund(transactionID: second.transactionID)
        let reversed = try fresh.simulation.reverseRefund(transactionID: second.transactionID)
        XCTAssertEqual(kinds(reversed.events), ["REFUND_REVERSED"])
        XCTAssertNil(reversed.events.first?.v1NotificationType)
        XCTAssertNil(try fresh.verify(receipt2).transactions.first?.cancellationDateMs)
        XCTAssertEqual(kinds(try fresh.simulation.advance(byMs: F.month).events), ["DID_RENEW"])
    }

    func testOneTimePurchases() throws {
        var fixture = F()
        let coins = try fixture.simulation.purchase(
            PurchaseRequest(productID: "coins.100", type: .consumable, userToken: "bob"))
        XCTAssertEqual(kinds(coins.events), ["ONE_TIME_CHARGE"])
        XCTAssertNil(coins.events.first?.v1NotificationType)
        let lifetime = try fixture.simulation.purchase(
            PurchaseRequest(productID: "pro.lifetime", type: .nonConsumable, userToken: "bob"))
        let json = try fixture.verifyJSON(try XCTUnwrap(lifetime.receiptData))
        XCTAssertEqual(((json["receipt"] as? [String: Any])?["in_app"] as? [Any])?.count, 2)
        // Consumables are only in in_app; no pending renewal without a subscription.
        XCTAssertEqual(
            (json["latest_receipt_info"] as? [[String: Any]])?.map { $0["product_id"] as? String }, ["pro.lifetime"])
        XCTAssertNil(json["pending_renewal_info"])
        XCTAssertNil(lifetime.transaction?.expiresDateMs)
    }

    func testRefusalsNameTheProblem() throws {
        var fixture = F()
        XCTAssertThrowsError(try fixture.simulation.renew(originalTransactionID: "nope")) {
            XCTAssertEqual(($0 as? SimulatorError)?.code, .notFound)
        }
        let (first, _) = try fixture.subscribe()
        XCTAssertThrowsError(try fixture.simulation.recoverBilling(originalTransactionID: first.transactionID)) {
            XCTAssertEqual(($0 as? SimulatorError)?.code, .conflict)
        }
        XCTAssertThrowsError(try fixture.simulation.advance(byMs: -1))
        XCTAssertThrowsError(try fixture.subscribe(user: "alice", environment: .sandbox))
    }
}
