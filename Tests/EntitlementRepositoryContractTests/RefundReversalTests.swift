import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// REFUND, REFUND_REVERSED and a later REFUND again commute: the state depends on which
/// notifications arrived, never on their order.
struct RefundReversalTests {
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

    /// Runs `body` on a fresh repository where alice owns chain 1 (bought, never refunded).
    private func withAlice(
        _ backend: Backend, _ body: (any EntitlementRepository) async throws -> Void
    ) async throws {
        try await backend.withRepository { store in
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            try await body(store)
        }
    }

    private func state(_ store: any EntitlementRepository) throws -> EntitlementState? {
        Fixture.state(of: "1", in: try store.facts(userID: "alice"), at: now)
    }

    @Test(arguments: Backend.allCases)
    func aRefundThenItsReversal(backend: Backend) async throws {
        try await withAlice(backend) { store in
            _ = try await store.apply(refund("v2:refund", cancelledAt: refundedAt))
            #expect(try state(store) == .revoked)
            let outcome = try await store.apply(reversal)
            #expect(outcome.ownerUserIDs == ["alice"])
            #expect(try state(store) == .active)
            #expect(try store.facts(userID: "alice").transactions.first?.cancellationDateMs == nil)
            #expect(try historyIDs(store, "alice") == ["v2:reversed", "v2:refund", "refund:1", "purchase:1"])
            let reversedEvent = try store.history(userID: "alice", productID: nil, pageSize: 1, pageToken: nil).events
            #expect(reversedEvent.map(\.appleNotificationType) == ["REFUND_REVERSED"])
        }
    }

    @Test(arguments: Backend.allCases)
    func theReversedRefundArrivingLateStaysReversed(backend: Backend) async throws {
        try await withAlice(backend) { store in
            _ = try await store.apply(reversal)
            let late = try await store.apply(refund("v2:refund", cancelledAt: refundedAt))
            #expect(late.ownerUserIDs == ["alice"])
            #expect(try state(store) == .active)
            // The same history as in arrival order: the refund happened, then was reversed.
            #expect(try historyIDs(store, "alice") == ["v2:reversed", "v2:refund", "refund:1", "purchase:1"])
            // A receipt still showing the reversed refund (it carries the refund's own date) changes nothing.
            let receipt = Fixture.receipt("alice", [Fixture.subscription("1", chain: "1", cancelledAt: refundedAt)])
            let outcome = try await store.write(receipt)
            #expect(outcome.newEvents == 0)
            #expect(try state(store) == .active)
        }
    }

    @Test(arguments: Backend.allCases)
    func aRefundAfterTheReversalApplies(backend: Backend) async throws {
        try await withAlice(backend) { store in
            _ = try await store.apply(refund("v2:refund", cancelledAt: refundedAt))
            _ = try await store.apply(reversal)
            _ = try await store.apply(refund("v2:refund-again", cancelledAt: refundedAgainAt))
            #expect(try state(store) == .revoked)
            #expect(try store.facts(userID: "alice").transactions.first?.cancellationDateMs == refundedAgainAt)
            #expect(try historyIDs(store, "alice") == ["v2:refund-again", "refund:1:\(refundedAgainAt)", "v2:reversed",
                                                       "v2:refund", "refund:1", "purchase:1"])
        }
    }

    @Test(arguments: Backend.allCases)
    func everyArrivalOrderEndsInTheSameState(backend: Backend) async throws {
        let first = refund("v2:refund", cancelledAt: refundedAt)
        let again = refund("v2:refund-again", cancelledAt: refundedAgainAt)
        let orders: [[NotificationWrite]] = [
            [first, reversal, again], [first, again, reversal], [reversal, first, again],
            [reversal, again, first], [again, first, reversal], [again, reversal, first],
        ]
        for (index, order) in orders.enumerated() {
            try await withAlice(backend) { store in
                for notification in order { _ = try await store.apply(notification) }
                #expect(try state(store) == .revoked, "order \(index)")
                #expect(try store.facts(userID: "alice").transactions.first?.cancellationDateMs == refundedAgainAt,
                        "order \(index)")
            }
        }
        // Without the second refund, every order ends reversed.
        for order in [[first, reversal], [reversal, first]] {
            try await withAlice(backend) { store in
                for notification in order { _ = try await store.apply(notification) }
                #expect(try state(store) == .active)
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func aReversalOfATransactionNotStoredYetWaitsForIt(backend: Backend) async throws {
        try await backend.withRepository { store in
            let outcome = try await store.apply(reversal)
            #expect(outcome.ownerUserIDs == [], "chain 1 is an orphan")
            _ = try await store.write(
                Fixture.receipt("alice", [Fixture.subscription("1", chain: "1", cancelledAt: refundedAt)]))
            #expect(try state(store) == .active)
        }
    }
}
