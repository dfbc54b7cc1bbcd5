import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// Finding a customer by a transaction id or an issued token (``CustomerLookup``), on every
/// backend: the chain of any of its transactions, and a token read that never issues one.
struct CustomerLookupTests {
    static func lookup(_ store: any EntitlementRepository) throws -> any CustomerLookup {
        try #require(store as? any CustomerLookup, "every backend looks customers up")
    }

    @Test(arguments: Backend.allCases)
    func everyTransactionOfAChainNamesItsOriginal(backend: Backend) async throws {
        try await backend.withRepository { store in
            let lookup = try Self.lookup(store)
            #expect(try lookup.originalTransactionID(ofTransaction: "10") == nil)
            _ = try await store.write(Fixture.receipt("alice", [
                Fixture.subscription("10", chain: "10"),
                Fixture.subscription("11", chain: "10", purchasedAt: Fixture.purchasedAt + 2_592_000_000),
                Fixture.subscription("20", chain: "20"),
            ]))
            #expect(try lookup.originalTransactionID(ofTransaction: "10") == "10")
            #expect(try lookup.originalTransactionID(ofTransaction: "11") == "10")
            #expect(try lookup.originalTransactionID(ofTransaction: "20") == "20")
            #expect(try lookup.originalTransactionID(ofTransaction: "12") == nil)
            #expect(try lookup.originalTransactionID(ofTransaction: "not-a-number") == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func anIssuedTokenIsReadWithoutIssuingOne(backend: Backend) async throws {
        try await backend.withRepository { store in
            let lookup = try Self.lookup(store)
            let tokens = try #require(store as? any AccountTokens)
            #expect(try lookup.issuedAppAccountToken(userID: "alice") == nil)
            #expect(try lookup.issuedAppAccountToken(userID: "alice") == nil, "reading issued nothing")
            let issued = try await tokens.appAccountToken(userID: "alice")
            #expect(try lookup.issuedAppAccountToken(userID: "alice") == issued)
            #expect(try lookup.issuedAppAccountToken(userID: "bob") == nil)
        }
    }
}
