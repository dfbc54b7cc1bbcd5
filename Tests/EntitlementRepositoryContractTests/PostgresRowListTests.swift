import Entitlements
import PostgreSQL
@testable import PostgreSQLStore
@testable import StorageTables
import Testing

/// PostgreSQL's list insert (`FactsRecorder+RowLists.swift`): list parameters read back exactly
/// what was bound, and the events kept behind it count as added only when stored.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresRowListTests {
    @Test func textAndIntegerListsReadBackValueForValue() async throws {
        let texts: [String?] = ["plain", "with \"quotes\"", "back\\slash\\", "", nil, "NULL", "ünï ✓",
                                "comma, {braces} and 'apostrophes'", " spaced "]
        let integers: [Int64?] = [0, -1, nil, .max, .min, 42]
        try await PostgresTestServer.withDatabase { url in
            let (readTexts, readIntegers) = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                let textQuery = try db.prepare("""
                    SELECT x FROM unnest(CAST(?1 AS TEXT[])) WITH ORDINALITY AS l(x, n) ORDER BY n
                    """)
                PostgreSQL.Connection.bindTextList(texts, at: 1, of: textQuery)
                var readTexts: [String?] = []
                while try textQuery.step() { readTexts.append(textQuery.optionalString(at: 0)) }
                textQuery.reset()
                let integerQuery = try db.prepare("""
                    SELECT x FROM unnest(CAST(?1 AS BIGINT[])) WITH ORDINALITY AS l(x, n) ORDER BY n
                    """)
                PostgreSQL.Connection.bindIntegerList(integers, at: 1, of: integerQuery)
                var readIntegers: [Int64?] = []
                while try integerQuery.step() { readIntegers.append(integerQuery.optionalInt64(at: 0)) }
                integerQuery.reset()
                return (readTexts, readIntegers)
            }
            #expect(readTexts == texts)
            #expect(readIntegers == integers)
        }
    }

    /// Events kept behind the write's transactions list are counted as added only when their
    /// insert stored them, once for an id kept twice, as events inserted at once are.
    @Test func keptEventsCountOnlyWhatTheirInsertsStored() async throws {
        let events = ["a", "b", "a", "c"].map { name in
            HistoryEvent(eventID: "v1:\(name)", kind: .purchase, occurredAtMs: 5, productID: "pro",
                         transactionID: "t-\(name)", originalTransactionID: "c", expiresAtMs: 9,
                         environment: .production, source: .receipt)
        }
        try await PostgresTestServer.withDatabase { url in
            let (storedFirst, listed, added, newEvents, stored) = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                try PostgresMigrator.migrate(db, nowMs: 1)
                try db.execute("INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1)")
                let recorder = try FactsRecorder(db: db, transferPolicy: .transfer, clock: { 1 })
                try db.execute("BEGIN")
                let storedFirst = try recorder.insert(events[1], userRow: 1)
                recorder.tally = .init()
                let listed = events.map { recorder.listEvent($0, userRow: 1, target: nil) }
                try recorder.flushRowLists()
                try db.flushDeferred()
                try db.execute("COMMIT")
                let stored = try db.scalarString("SELECT string_agg(event_id, ' ' ORDER BY id) FROM history_events")
                return (storedFirst, listed, recorder.tally.addedEvents.map(\.event.eventID),
                        recorder.tally.newEvents, stored)
            }
            #expect(storedFirst)
            #expect(listed == [true, true, true, true])
            // The repeated "v1:a" is added once, for its first copy; "v1:b" was there already.
            #expect(added == ["v1:a", "v1:c"])
            #expect(newEvents == 2)
            #expect(stored == "v1:b v1:a v1:c")
        }
    }
}
