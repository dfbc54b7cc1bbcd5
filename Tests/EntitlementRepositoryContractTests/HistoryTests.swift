import EntitlementPorts
import Entitlements
import Testing

/// History pages: newest first, no gap or repeat across ties, a product filter, and opaque
/// tokens that every backend issues and refuses alike.
struct HistoryTests {
    private func event(_ id: String, at occurredAtMs: Int64, product: String = "p.monthly",
                       chain: String = "t") -> HistoryEvent {
        HistoryEvent(eventID: id, kind: .other, occurredAtMs: occurredAtMs, productID: product,
                     transactionID: chain, originalTransactionID: chain, environment: .production,
                     source: .notificationV2, appleNotificationType: "TEST")
    }

    /// Makes `user` own `chain` (a receipt with only its renewal info: no events of its own).
    private func own(_ chain: String, by user: String, in store: any EntitlementRepository) async throws {
        _ = try await store.write(
            FactsWrite(
                userID: user,
                renewalInfos: [RenewalInfo(originalTransactionID: chain, autoRenewStatus: true, signedDateMs: 0)],
                source: .receipt))
    }

    /// Records `events` the way notifications do: they join the history of their chain's owner.
    private func record(_ events: [HistoryEvent], _ sourceID: String, in store: any EntitlementRepository) async throws
    {
        _ = try await store.apply(
            NotificationWrite(
                source: .notificationV2, sourceID: sourceID, signedDateMs: 0,
                events: events))
    }

    /// Pages through everything, asserting each page's size.
    private func allPages(
        _ store: any EntitlementRepository, user: String, product: String? = nil, pageSize: Int
    ) throws -> [HistoryEvent] {
        var events: [HistoryEvent] = []
        var token: String?
        repeat {
            let page = try store.history(userID: user, productID: product, pageSize: pageSize, pageToken: token)
            #expect(page.events.count <= HistoryPage.clampedPageSize(pageSize))
            events += page.events
            token = page.nextPageToken.isEmpty ? nil : page.nextPageToken
            #expect(token == nil || !page.events.isEmpty)
        } while token != nil
        return events
    }

    @Test(arguments: Backend.allCases)
    func paginationHasNoGapOrDuplicateAcrossClockTies(backend: Backend) async throws {
        try await backend.withRepository { store in
            // 1,201 events over only 13 distinct instants; ids chosen so that id order and
            // insertion order disagree (shuffled, with prefixes like e1 < e10 < e100).
            var expected = (0..<1_201).map { index in event("e\(index)", at: Int64(1_000 + index % 13)) }
            var generator = SystemRandomNumberGenerator()
            expected.shuffle(using: &generator)
            try await own("t", by: "alice", in: store)
            for chunk in stride(from: 0, to: expected.count, by: 100) {
                let events = Array(expected[chunk..<min(chunk + 100, expected.count)])
                try await record(events, "chunk-\(chunk)", in: store)
            }
            expected.sort { ($0.occurredAtMs, $0.eventID) > ($1.occurredAtMs, $1.eventID) }

            for pageSize in [1, 7, 50, 500, 10_000] {
                let pages = try allPages(store, user: "alice", pageSize: pageSize)
                #expect(pages.count == 1_201, "page size \(pageSize)")
                #expect(pages.map(\.eventID) == expected.map(\.eventID), "page size \(pageSize)")
            }
            let first = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
            #expect(first.events.count == 50, "0 means the default page size")
            let clamped = try store.history(userID: "alice", productID: nil, pageSize: 100_000, pageToken: nil)
            #expect(clamped.events.count == 500)
        }
    }

    @Test(arguments: Backend.allCases)
    func productFilter(backend: Backend) async throws {
        try await backend.withRepository { store in
            let events = (0..<30).map {
                event("e\($0)", at: Int64($0), product: $0 % 3 == 0 ? "p.yearly" : "p.monthly")
            }
            try await own("t", by: "alice", in: store)
            try await own("b", by: "bob", in: store)
            try await record(events, "alice-events", in: store)
            try await record([event("b1", at: 5, product: "p.yearly", chain: "b")], "bob-events", in: store)
            let yearly = try allPages(store, user: "alice", product: "p.yearly", pageSize: 4)
            #expect(yearly.map(\.eventID) == stride(from: 27, through: 0, by: -3).map { "e\($0)" })
            #expect(try allPages(store, user: "alice", product: "p.none", pageSize: 4) == [])
            #expect(try allPages(store, user: "nobody", pageSize: 4) == [])
        }
    }

    @Test(arguments: Backend.allCases)
    func aBadPageTokenIsADistinctError(backend: Backend) async throws {
        try await backend.withRepository { store in
            for token in ["garbage", "zz", "31", "317c787c65", String(repeating: "ab", count: 5_000)] {
                await expectStoreError(.badPageToken) {
                    _ = try store.history(userID: "alice", productID: nil, pageSize: 10, pageToken: token)
                }
            }
            let empty = try store.history(userID: "alice", productID: nil, pageSize: 10, pageToken: "")
            #expect(empty == HistoryPage(events: [], nextPageToken: ""), "empty token means the first page")
        }
    }
}
