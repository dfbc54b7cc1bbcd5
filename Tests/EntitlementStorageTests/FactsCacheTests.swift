import Entitlements
import EntitlementPorts
@testable import EntitlementStorage
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

        // One slot per canonical key: each spelling hits only its own facts, the other misses.
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
        if case .hit(let composed) = cache.lookup("zo\u{EB}") { XCTAssertEqual(composed, zoe, "never the other's") }
        await store.close()
    }
}
