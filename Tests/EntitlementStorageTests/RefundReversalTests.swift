import Entitlements
import EntitlementPorts
import EntitlementStorage
import XCTest

/// REFUND, REFUND_REVERSED and a later REFUND again commute: the state depends on which
/// notifications arrived, never on their order.
final class RefundReversalTests: StoreTestCase {
    private let now = Fixture.purchasedAt + 86_400_000
    private let refundedAt = Fixture.purchasedAt + 10_000
    private let reversedAt = Fixture.purchasedAt + 20_000
    private let refundedAgainAt = Fixture.purchasedAt + 30_000

    private func refund(_ uuid: String, cancelledAt: Int64) -> NotificationWrite {
        Fixture.notification(
            uuid, signedAt: cancelledAt + 500,
            transactions: [Fixture.subscription("1", chain: "1", cancelledAt: cancelledAt)],
            events: [Fixture.event(uuid, .refund, chain: "1", at: cancelledAt + 500, type: "REFUND")])
    }

    private var reversal: NotificationWrite {
        Fixture.notification(
            "v2:reversed", signedAt: reversedAt, transactions: [Fixture.subscription("1", chain: "1")],
            events: [Fixture.event("v2:reversed", .other, chain: "1", at: reversedAt, type: "REFUND_REVERSED")],
            reversedRefunds: ["1"])
    }

    private func openWithAlice() async throws -> EntitlementStore {
        let store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
        return store
    }

    private func state(_ store: EntitlementStore) throws -> EntitlementState? {
        Fixture.state(of: "1", in: try store.facts(userID: "alice"), at: now)
    }

    private func historyIDs(_ store: EntitlementStore) throws -> [String] {
        try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil).events.map(\.eventID)
    }

    func testARefundThenItsReversal() async throws {
        let store = try await openWithAlice()
        _ = try await store.apply(refund("v2:refund", cancelledAt: refundedAt))
        XCTAssertEqual(try state(store), .revoked)
        let outcome = try await store.apply(reversal)
        XCTAssertEqual(outcome.ownerUserIDs, ["alice"])
        XCTAssertEqual(try state(store), .active)
        XCTAssertEqual(try store.facts(userID: "alice").transactions.first?.cancellationDateMs, nil)
        XCTAssertEqual(try historyIDs(store), ["v2:reversed", "v2:refund", "refund:1", "purchase:1"])
        let reversedEvent = try store.history(userID: "alice", productID: nil, pageSize: 1, pageToken: nil).events
        XCTAssertEqual(reversedEvent.map(\.appleNotificationType), ["REFUND_REVERSED"])
        await store.close()
    }

    func testTheReversedRefundArrivingLateStaysReversed() async throws {
        let store = try await openWithAlice()
        _ = try await store.apply(reversal)
        let late = try await store.apply(refund("v2:refund", cancelledAt: refundedAt))
        XCTAssertEqual(late.ownerUserIDs, ["alice"])
        XCTAssertEqual(try state(store), .active)
        // The same history as in arrival order: the refund happened, then was reversed.
        XCTAssertEqual(try historyIDs(store), ["v2:reversed", "v2:refund", "refund:1", "purchase:1"])
        // A receipt still showing the reversed refund (it carries the refund's own date) changes nothing.
        let receipt = Fixture.receipt("alice", [Fixture.subscription("1", chain: "1", cancelledAt: refundedAt)])
        let outcome = try await store.write(receipt)
        XCTAssertEqual(outcome.newEvents, 0)
        XCTAssertEqual(try state(store), .active)
        await store.close()
    }

    func testARefundAfterTheReversalApplies() async throws {
        let store = try await openWithAlice()
        _ = try await store.apply(refund("v2:refund", cancelledAt: refundedAt))
        _ = try await store.apply(reversal)
        _ = try await store.apply(refund("v2:refund-again", cancelledAt: refundedAgainAt))
        XCTAssertEqual(try state(store), .revoked)
        XCTAssertEqual(try store.facts(userID: "alice").transactions.first?.cancellationDateMs, refundedAgainAt)
        XCTAssertEqual(try historyIDs(store), ["v2:refund-again", "refund:1:\(refundedAgainAt)", "v2:reversed",
                                               "v2:refund", "refund:1", "purchase:1"])
        await store.close()
    }

    func testEveryArrivalOrderEndsInTheSameState() async throws {
        let first = refund("v2:refund", cancelledAt: refundedAt)
        let again = refund("v2:refund-again", cancelledAt: refundedAgainAt)
        let orders: [[NotificationWrite]] = [
            [first, reversal, again], [first, again, reversal], [reversal, first, again],
            [reversal, again, first], [again, first, reversal], [again, reversal, first],
        ]
        for (index, order) in orders.enumerated() {
            let store = try await openWithAlice()
            for notification in order { _ = try await store.apply(notification) }
            XCTAssertEqual(try state(store), .revoked, "order \(index)")
            XCTAssertEqual(try store.facts(userID: "alice").transactions.first?.cancellationDateMs,
                           refundedAgainAt, "order \(index)")
            await store.close()
            try tearDownWithError()
            try setUpWithError()
        }
        // Without the second refund, every order ends reversed.
        for order in [[first, reversal], [reversal, first]] {
            let store = try await openWithAlice()
            for notification in order { _ = try await store.apply(notification) }
            XCTAssertEqual(try state(store), .active)
            await store.close()
            try tearDownWithError()
            try setUpWithError()
        }
    }

    func testAReversalOfATransactionNotStoredYetWaitsForIt() async throws {
        let store = try openStore()
        let outcome = try await store.apply(reversal)
        XCTAssertEqual(outcome.ownerUserIDs, [], "chain 1 is an orphan")
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1", cancelledAt: refundedAt)]))
        XCTAssertEqual(try state(store), .active)
        await store.close()
    }
}
