import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// A renewal-date extension moves a stored transaction's expiry later, on every backend: the
/// operator's write (source operator, actor and reason kept) and Apple's notification alike,
/// once per source id, never backwards, and the events written before keep their own expiry.
struct RenewalExtensionTests {
    private let week: Int64 = 7 * 86_400_000

    private func extended(_ transaction: Transaction, by ms: Int64) -> Transaction {
        var later = transaction
        later.expiresDateMs = (transaction.expiresDateMs ?? 0) + ms
        return later
    }

    @Test(arguments: Backend.allCases)
    func anOperatorsExtensionMovesTheExpiryOnceAndKeepsActorAndReason(backend: Backend) async throws {
        try await backend.withRepository { store in
            let purchase = Fixture.subscription("1", chain: "1")
            _ = try await store.write(Fixture.receipt("alice", [purchase]))
            let moved = extended(purchase, by: week)
            let event = HistoryEvent(
                eventID: "renewal_extended:r1", kind: .renewalExtended, occurredAtMs: Fixture.purchasedAt + 5,
                productID: purchase.productID, transactionID: "1", originalTransactionID: "1",
                expiresAtMs: moved.expiresDateMs!, environment: purchase.environment, source: .operator,
                actor: "alice-support", reason: "7 days, service issue")
            let write = NotificationWrite(source: .operator, sourceID: "extend:r1", signedDateMs: Fixture.purchasedAt,
                                          transactions: [moved], events: [event])
            let first = try await store.apply(write)
            #expect(first.ownerUserIDs == ["alice"] && first.newEvents == 1 && !first.duplicate)
            #expect(try store.facts(userID: "alice").transactions.map(\.expiresDateMs) == [moved.expiresDateMs])
            #expect(try await store.apply(write).duplicate)
            let events = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil).events
            #expect(events.map(\.kind) == [.renewalExtended, .purchase])
            #expect(events[0].source == .operator && events[0].actor == "alice-support")
            #expect(events[0].reason == "7 days, service issue" && events[0].expiresAtMs == moved.expiresDateMs)
            #expect(events[1].expiresAtMs == purchase.expiresDateMs, "the purchase event keeps the expiry it had")
        }
    }

    @Test(arguments: Backend.allCases)
    func anOlderCopyArrivingLaterNeverMovesTheExpiryBack(backend: Backend) async throws {
        try await backend.withRepository { store in
            let purchase = Fixture.subscription("1", chain: "1")
            _ = try await store.write(Fixture.receipt("alice", [purchase]))
            let moved = extended(purchase, by: week)
            _ = try await store.apply(Fixture.notification(
                "v2:extended", transactions: [moved],
                events: [Fixture.event("v2:extended", .renewalExtended, chain: "1", at: Fixture.purchasedAt + 9,
                                       type: "RENEWAL_EXTENDED")]))
            _ = try await store.write(Fixture.receipt("alice", [purchase], sourceID: "old-receipt"))
            _ = try await store.apply(Fixture.notification("v2:late", transactions: [purchase]))
            #expect(try store.facts(userID: "alice").transactions.map(\.expiresDateMs) == [moved.expiresDateMs])
        }
    }
}
