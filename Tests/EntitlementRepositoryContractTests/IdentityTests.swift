import EntitlementPorts
import Entitlements
import Synchronization
import Testing
import TestSupport

/// App account tokens: issued once per user, binding purchases that carry them, and the claim
/// rules that keep a purchase with its account (``ClaimRules``), on every backend.
struct IdentityTests {
    static func tokens(_ store: any EntitlementRepository) throws -> any AccountTokens {
        try #require(store as? any AccountTokens, "every backend issues app account tokens")
    }

    static func bought(_ id: String, chain: String, token: String?) -> Transaction {
        var transaction = Fixture.subscription(id, chain: chain)
        transaction.appAccountToken = token
        return transaction
    }

    static func bare(_ userID: String, _ transactions: [Transaction]) -> FactsWrite {
        FactsWrite(userID: userID, transactions: transactions, source: .receipt, proof: .transactionIDOnly)
    }

    static func refusal(_ body: () async throws -> Void) async -> StoreError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? StoreError
        }
    }

    @Test(arguments: Backend.allCases)
    func aTokenIsIssuedOncePerUserAndLooksUpTheUser(backend: Backend) async throws {
        try await backend.withRepository { store in
            let tokens = try Self.tokens(store)
            let alice = try await tokens.appAccountToken(userID: "alice")
            #expect(AppAccountToken.canonical(alice) == alice, "a lowercase canonical UUID")
            #expect(try await tokens.appAccountToken(userID: "alice") == alice, "the same on every call")
            let bob = try await tokens.appAccountToken(userID: "bob")
            #expect(bob != alice)
            #expect(try tokens.userID(appAccountToken: alice) == "alice")
            #expect(try tokens.userID(appAccountToken: bob.uppercased()) == "bob", "Apple keeps the app's case")
            #expect(try tokens.userID(appAccountToken: AppAccountToken.random()) == nil)
            #expect(try tokens.userID(appAccountToken: "not-a-uuid") == nil)
            #expect(try store.facts(userID: "alice") == UserFacts(), "a token alone is no purchase")
        }
    }

    @Test(arguments: Backend.allCases)
    func aNotificationCarryingAnIssuedTokenMakesItsUserTheOwner(backend: Backend) async throws {
        try await backend.withRepository { store in
            let token = try await Self.tokens(store).appAccountToken(userID: "alice")
            let first = Self.bought("10", chain: "10", token: token.uppercased())
            let outcome = try await store.apply(Fixture.notification("v2:subscribed", transactions: [first]))
            #expect(outcome.ownerUserIDs == ["alice"])
            #expect(outcome.boundByToken == 1)
            #expect(try store.facts(userID: "alice").transactions.map(\.transactionID) == ["10"])
            let facts = try store.facts(userID: "alice")
            #expect(Fixture.state(of: "10", in: facts, at: Fixture.purchasedAt + 1) == .active)

            // A token this service never issued, or one that is not a UUID, binds nothing.
            for (index, foreign) in [AppAccountToken.random(), "not-a-uuid"].enumerated() {
                let chain = "2\(index)"
                let orphan = try await store.apply(Fixture.notification(
                    "v2:foreign\(index)", transactions: [Self.bought(chain, chain: chain, token: foreign)]))
                #expect(orphan.ownerUserIDs == [], "\(foreign)")
            }
        }
    }

    @Test(arguments: [TransferPolicy.transfer, .reject], Backend.allCases)
    func aClaimOfAnotherAccountsTokenIsRefusedUnderEveryPolicy(policy: TransferPolicy, backend: Backend) async throws {
        // A refusal's event is dated by the store's clock; each attempt here gets its own instant.
        let clock = ManualClock(1_800_000_000_000)
        try await backend.withRepository(policy: policy, clock: clock.read) { store in
            let token = try await Self.tokens(store).appAccountToken(userID: "alice")
            let first = Self.bought("10", chain: "10", token: token)
            _ = try await store.apply(Fixture.notification("v2:subscribed", transactions: [first]))

            for claim in [Fixture.receipt("mallory", [first]), Self.bare("mallory", [first])] {
                clock.advance(by: 1)
                let error = await Self.refusal { _ = try await store.write(claim) }
                #expect(error?.code == .claimRefused)
                #expect(error?.refusal
                    == ClaimRefusal(reason: .token, originalTransactionID: "10", ownerUserID: "alice"))
                #expect(!(error?.message.contains("alice") ?? true), "the refusal never names the owner")
            }
            #expect(try store.facts(userID: "mallory") == UserFacts())
            #expect(try store.facts(userID: "alice").transactions.map(\.transactionID) == ["10"], "alice keeps it")
            let history = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil).events
            let refused = history.filter { $0.kind == .claimRefused }
            #expect(refused.count == 2, "one event per refused claim")
            #expect(refused.allSatisfy { $0.counterpartUserID == "mallory" && $0.originalTransactionID == "10" })
        }
    }

    @Test(arguments: Backend.allCases)
    func aRefusedClaimOfAChainNoOneHoldsYetStoresNothing(backend: Backend) async throws {
        try await backend.withRepository { store in
            let token = try await Self.tokens(store).appAccountToken(userID: "alice")
            let first = Self.bought("10", chain: "10", token: token)
            // The receipt arrives before Apple's notification: the token still decides.
            let error = await Self.refusal { _ = try await store.write(Fixture.receipt("mallory", [first])) }
            #expect(error?.refusal?.reason == .token)
            #expect(try store.facts(userID: "mallory") == UserFacts())
            _ = try await store.apply(Fixture.notification("v2:subscribed", transactions: [first]))
            #expect(try store.facts(userID: "alice").transactions.map(\.transactionID) == ["10"])
        }
    }

    @Test(arguments: Backend.allCases)
    func aBareTransactionIDNeverTakesAnotherUsersChain(backend: Backend) async throws {
        try await backend.withRepository(policy: .transfer) { store in
            let first = Self.bought("10", chain: "10", token: nil)
            _ = try await store.write(Fixture.receipt("alice", [first]))
            let error = await Self.refusal { _ = try await store.write(Self.bare("mallory", [first])) }
            #expect(error?.code == .claimRefused)
            #expect(error?.refusal == ClaimRefusal(reason: .bareTransactionID, originalTransactionID: "10",
                                                   ownerUserID: "alice"))
            #expect(error?.message.contains("receipt") ?? false, "says what to submit instead")
            #expect(try store.facts(userID: "mallory") == UserFacts())
            #expect(try store.facts(userID: "alice").transactions.count == 1)
            let history = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil).events
            #expect(history.map(\.kind) == [.claimRefused, .purchase])

            // The owner refreshes with a bare id; a bare id still claims a chain nobody owns.
            let renewal = Self.bought("11", chain: "10", token: nil)
            #expect(try await store.write(Self.bare("alice", [first, renewal])).newTransactions == 1)
            let orphan = Self.bought("30", chain: "30", token: nil)
            _ = try await store.apply(Fixture.notification("v2:orphan", transactions: [orphan]))
            _ = try await store.write(Self.bare("bob", [orphan]))
            #expect(try store.facts(userID: "bob").transactions.map(\.transactionID) == ["30"])
        }
    }

    @Test(arguments: Backend.allCases)
    func aDevicesProofOfATokenlessChainFollowsTheTransferPolicy(backend: Backend) async throws {
        try await backend.withRepository(policy: .transfer) { store in
            let first = Self.bought("10", chain: "10", token: nil)
            let claimed = try await store.write(Fixture.receipt("alice", [first]))
            #expect(claimed.tokenlessChainsTaken == ["10"], "a new chain without a token: Apple can be told")
            let moved = try await store.write(Fixture.receipt("bob", [first]))
            #expect(moved.ownershipTransfers == 1)
            #expect(moved.tokenlessChainsTaken == ["10"])
            #expect(try store.facts(userID: "alice") == UserFacts())
            #expect(try await store.write(Fixture.receipt("bob", [first])).tokenlessChainsTaken == [], "already bob's")
        }
    }

    @Test(arguments: Backend.allCases)
    func theTokensUserTakesTheirPurchaseBackFromAnyone(backend: Backend) async throws {
        try await backend.withRepository(policy: .reject) { store in
            // Owned by bob before the token reached the service (a purchase restored early).
            let first = Self.bought("10", chain: "10", token: nil)
            _ = try await store.write(Fixture.receipt("bob", [first]))
            let token = try await Self.tokens(store).appAccountToken(userID: "alice")
            let renewal = Self.bought("11", chain: "10", token: token)
            let outcome = try await store.apply(Fixture.notification("v2:renew", transactions: [renewal]))
            #expect(outcome.ownerUserIDs.contains("alice"))
            #expect(outcome.ownershipTransfers == 1)
            #expect(try store.facts(userID: "bob") == UserFacts())
            #expect(Set(try store.facts(userID: "alice").transactions.map(\.transactionID)) == ["10", "11"])
            let bobs = try store.history(userID: "bob", productID: nil, pageSize: 0, pageToken: nil).events
            #expect(bobs.first { $0.kind == .ownershipTransfer }?.counterpartUserID == "alice")
        }
    }

    @Test(arguments: Backend.allCases)
    func ownersListsEveryAccountAChainPassedThrough(backend: Backend) async throws {
        let clock = ManualClock(1_800_000_000_000)
        try await backend.withRepository(policy: .transfer, clock: clock.read) { store in
            let tokens = try Self.tokens(store)
            #expect(try tokens.owners(originalTransactionID: "10") == [])
            let first = Self.bought("10", chain: "10", token: nil)
            for user in ["alice", "bob", "carol"] {
                clock.advance(by: 1_000)
                _ = try await store.write(Fixture.receipt(user, [first]))
            }
            let owners = try tokens.owners(originalTransactionID: "10")
            #expect(owners.map(\.userID) == ["alice", "bob", "carol"])
            #expect(owners.map(\.untilMs) == [1_800_000_002_000, 1_800_000_003_000, nil])
            #expect(owners.dropFirst().map(\.sinceMs) == [1_800_000_002_000, 1_800_000_003_000])
        }
    }
}

