import EntitlementPorts
import Entitlements
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// The facts cache tells users apart as the store does, byte for byte.
final class FactsCacheTests: StoreTestCase {
    /// `zo\u{EB}` and `zoe\u{308}` are equal Strings (canonical equivalence) but two users in
    /// the store: whichever is read first, the other still gets their own answer. A cache slot
    /// found by String alone answers the second read with the first user's cached facts.
    func testCanonicallyEquivalentIDsAreTwoUsers() async throws {
        let store = try openStore()
        _ = try await store.write(Fixture.receipt("zo\u{EB}", [Fixture.subscription("1000", chain: "1000")]))
        XCTAssertTrue(try store.facts(userID: "zoe\u{308}").transactions.isEmpty, "decomposed first")
        XCTAssertEqual(transactionIDs(try store.facts(userID: "zo\u{EB}")), ["1000"], "composed after it")
        XCTAssertTrue(try store.facts(userID: "zoe\u{308}").transactions.isEmpty, "decomposed, both cached")

        // Two entries: each spelling hits its own facts, never the other's.
        let cache = FactsCache(capacity: 10)
        let zoe = try store.facts(userID: "zo\u{EB}")
        guard case .miss(let first) = cache.lookup("zo\u{EB}") else { return XCTFail("empty cache") }
        cache.insert(zoe, for: "zo\u{EB}", after: first)
        guard case .hit(let hit) = cache.lookup("zo\u{EB}") else { return XCTFail("zo\u{EB} cached") }
        XCTAssertEqual(hit, zoe)
        guard case .miss(let second) = cache.lookup("zoe\u{308}") else { return XCTFail("not her facts") }
        cache.insert(UserFacts(), for: "zoe\u{308}", after: second)
        guard case .hit(let decomposed) = cache.lookup("zoe\u{308}") else { return XCTFail("zoe\u{308} cached") }
        XCTAssertTrue(decomposed.transactions.isEmpty)
        guard case .hit(let composed) = cache.lookup("zo\u{EB}") else { return XCTFail("both cached at once") }
        XCTAssertEqual(composed, zoe)
        await store.close()
    }

    /// Random lookups, inserts and invalidations against a model (the last facts inserted per
    /// id since its last invalidation), with every id hashing to one value or to one of three:
    /// every probe run is long, so lookups, eviction's removal and invalidation's backward shift
    /// all walk past other ids' entries. A hit must answer the model's facts for exactly that id.
    func testHitsAnswerTheLastInsertedFactsOfExactlyThatIDUnderCollidingHashes() {
        for buckets in [1, 3] {
            // A seeded linear congruential sequence (its high bits), so a failure replays.
            var state = UInt64(buckets)
            func next() -> UInt64 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return state >> 33
            }
            let cache = FactsCache(capacity: 64 * 30, hashID: { id in id.utf8.reduce(0) { $0 &+ Int($1) } % buckets })
            let ids = (0..<40).map { "user\($0)" } + ["zo\u{EB}", "zoe\u{308}"]
            var model: [ExactID: UserFacts] = [:]
            var hits = 0
            for step in 0..<20_000 {
                let id = ids[Int(next() % UInt64(ids.count))]
                switch next() % 10 {
                case 0:
                    cache.invalidate([id])
                    model[ExactID(id)] = nil
                default:
                    switch cache.lookup(id) {
                    case .hit(let facts):
                        hits += 1
                        XCTAssertEqual(facts, model[ExactID(id)], "step \(step): \(id) answered other facts")
                        guard case .hit(let memo?) = cache.lookupMemo(id), memo === facts.checkAnswers else {
                            return XCTFail("step \(step): \(id)'s memo lookup found another entry")
                        }
                    case .miss(let miss):
                        let facts = Self.facts(marking: step)
                        cache.insert(facts, for: id, after: miss)
                        model[ExactID(id)] = facts
                    }
                }
            }
            XCTAssertGreaterThan(hits, 10_000, "\(buckets) bucket(s): the cache kept what fits")
        }
    }

    /// A stripe holds `capacity / 64 + capacity / 640 + 16` users; past that CLOCK evicts, and
    /// an evicted id misses instead of answering another id's facts.
    func testEvictionKeepsEveryAnswerExact() {
        let cache = FactsCache(capacity: 64, hashID: { _ in 0 })
        for round in 0..<3 {
            for number in 0..<40 {
                let id = "u\(number)"
                switch cache.lookup(id) {
                case .hit(let facts): XCTAssertEqual(facts, Self.facts(marking: number), "round \(round), \(id)")
                case .miss(let miss): cache.insert(Self.facts(marking: number), for: id, after: miss)
                }
            }
        }
        var cached = 0
        for number in 0..<40 {
            if case .hit(let facts) = cache.lookup("u\(number)") {
                cached += 1
                XCTAssertEqual(facts, Self.facts(marking: number))
            }
        }
        XCTAssertEqual(cached, 17, "one stripe holds 64 / 64 + 64 / 640 + 16 users")
    }

    /// The store hands a cached user's memo over alone, the same memo their cached facts
    /// carry, and reads (and caches) the facts of a user not cached; a write brings a new memo.
    func testAStoreHandsOverACachedUsersMemoAlone() async throws {
        let store = try openStore()
        guard case .facts(let read) = try store.keptAnswersOrFacts(userID: "alice") else {
            return XCTFail("not cached: the facts are read")
        }
        XCTAssertTrue(read.transactions.isEmpty)
        guard case .kept(let memo) = try store.keptAnswersOrFacts(userID: "alice") else {
            return XCTFail("cached by the read before")
        }
        XCTAssertTrue(memo === (try store.facts(userID: "alice")).checkAnswers)
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1000", chain: "1000")]))
        guard case .kept(let after) = try store.keptAnswersOrFacts(userID: "alice") else {
            return XCTFail("the submitting user's facts are refreshed in the cache")
        }
        XCTAssertFalse(after === memo, "a write drops the kept answers")
        XCTAssertTrue(after === (try store.facts(userID: "alice")).checkAnswers)
        XCTAssertEqual(transactionIDs(try store.facts(userID: "alice")), ["1000"])
        await store.close()
    }

    /// An insert after an invalidation that happened since the miss is dropped.
    func testAnInsertAfterAnInvalidationSinceTheMissIsDropped() {
        let cache = FactsCache(capacity: 10, hashID: { _ in 5 })
        guard case .miss(let miss) = cache.lookup("a") else { return XCTFail("empty cache") }
        cache.invalidate(["b"])
        cache.insert(Self.facts(marking: 1), for: "a", after: miss)
        guard case .miss = cache.lookup("a") else { return XCTFail("stale facts cached") }
    }

    /// On a shared database the writer refreshes a user only when no other writer's
    /// invalidation came in since its mark (read before BEGIN): one that did may be for a
    /// later commit and may have reached the slot first, so the user is dropped instead.
    /// Fails if a refresh ignores the mark (stale facts kept) or always drops (no hit after a
    /// write, the round trips this saves), or if the listener's clear-all does not count.
    func testARefreshDropsTheUserWhenAnotherWriterInvalidatedSinceTheMark() {
        let cache = FactsCache(capacity: 10)
        let quiet = cache.otherWritersMark
        cache.refresh(Self.facts(marking: 1), for: "alice", insertingIfAbsent: true, unlessOtherWritersSince: quiet)
        guard case .hit(let refreshed) = cache.lookup("alice") else { return XCTFail("no other writer: refreshed") }
        XCTAssertEqual(refreshed, Self.facts(marking: 1))
        cache.invalidate(["bob"])
        XCTAssertEqual(cache.otherWritersMark, quiet, "this writer's own invalidations do not count")
        let outside: [(String, (FactsCache) -> Void)] = [
            ("a replica's NOTIFY", { $0.invalidateForOtherWriter(["bob"]) }),
            ("the listener's clear-all", { $0.invalidateAllForOtherWriters() }),
        ]
        for (what, invalidation) in outside {
            let mark = cache.otherWritersMark
            cache.refresh(Self.facts(marking: 2), for: "alice", insertingIfAbsent: true, unlessOtherWritersSince: mark)
            invalidation(cache)
            cache.refresh(Self.facts(marking: 3), for: "alice", insertingIfAbsent: true, unlessOtherWritersSince: mark)
            guard case .miss = cache.lookup("alice") else { return XCTFail("\(what) since the mark: dropped") }
        }
        cache.refresh(Self.facts(marking: 4), for: "alice", insertingIfAbsent: true)
        guard case .hit(let unmarked) = cache.lookup("alice") else { return XCTFail("one writer: no mark, refreshed") }
        XCTAssertEqual(unmarked, Self.facts(marking: 4))
    }

    /// Facts told apart by `step`: one transaction whose id is the step.
    /// Cached facts carry a ``CheckAnswerMemo`` that every hit shares, and a refresh or an
    /// invalidation and reload brings a new one: a kept CheckEntitlement answer must never
    /// outlive the facts it was judged from. Fails if the cache stops attaching memos (no
    /// answer is kept) or keeps the old memo across a refresh (a stale answer).
    func testCachedFactsShareOneAnswerMemoThatARefreshOrInvalidationReplaces() {
        let cache = FactsCache(capacity: 10)
        guard case .miss(let miss) = cache.lookup("alice") else { return XCTFail("empty cache") }
        cache.insert(Self.facts(marking: 1), for: "alice", after: miss)
        guard case .hit(let first) = cache.lookup("alice"), case .hit(let again) = cache.lookup("alice"),
              let memo = first.checkAnswers
        else { return XCTFail("alice cached with a memo") }
        XCTAssertTrue(again.checkAnswers === memo, "one memo for every hit")
        cache.refresh(Self.facts(marking: 2), for: "alice", insertingIfAbsent: false)
        guard case .hit(let refreshed) = cache.lookup("alice"), let refreshedMemo = refreshed.checkAnswers
        else { return XCTFail("refreshed with a memo") }
        XCTAssertEqual(refreshed, Self.facts(marking: 2))
        XCTAssertFalse(refreshedMemo === memo, "a refresh drops the kept answers")
        cache.invalidate(["alice"])
        guard case .miss(let reload) = cache.lookup("alice") else { return XCTFail("invalidated") }
        cache.insert(Self.facts(marking: 2), for: "alice", after: reload)
        guard case .hit(let reloaded) = cache.lookup("alice") else { return XCTFail("reloaded") }
        XCTAssertFalse(reloaded.checkAnswers === refreshedMemo, "an invalidation drops the kept answers")
    }

    /// Changing a copy of memo-carrying facts detaches the memo, so answers kept for the
    /// original are never handed out for the changed facts; the memo is not part of equality.
    func testChangingFactsDetachesTheirMemo() {
        let cached = Self.facts(marking: 1).withCheckAnswerMemo()
        XCTAssertNotNil(cached.checkAnswers)
        XCTAssertEqual(cached, Self.facts(marking: 1))
        var more = cached
        more.transactions.append(Fixture.subscription("9", chain: "c9"))
        XCTAssertNil(more.checkAnswers)
        var renewed = cached
        renewed.renewalInfos["c1"] = RenewalInfo(originalTransactionID: "c1", autoRenewStatus: false, signedDateMs: 1)
        XCTAssertNil(renewed.checkAnswers)
        XCTAssertNotNil(cached.checkAnswers, "the original keeps its memo")
    }

    private static func facts(marking step: Int) -> UserFacts {
        UserFacts(transactions: [Fixture.subscription("\(step)", chain: "c\(step)")])
    }
}

