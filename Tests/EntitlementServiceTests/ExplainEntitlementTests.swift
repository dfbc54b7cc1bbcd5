import EntitlementAPI
import EntitlementMemoryStore
import EntitlementPorts
@testable import EntitlementService
import Entitlements
import RPCCore
import Testing

/// ExplainEntitlement on the in-memory repository: it answers what CheckEntitlement answers,
/// and each transaction's `source` is whoever reported it first, from the whole history.
struct ExplainEntitlementTests {
    private func rpcs(_ repository: any EntitlementRepository) -> EntitlementRPCs {
        let receipts = ReceiptSubmission(
            verifier: Harness.verifier(ScriptedApple([])),
            signedTransactions: SignedTransactionVerifier(verifier: .init(), bundleID: nil),
            repository: repository, catalog: .empty, verifyCacheTTLMs: nil, now: Harness.clock)
        return EntitlementRPCs(repository: repository, catalog: .empty, receipts: receipts, now: Harness.clock)
    }

    private func renewal(_ id: String, chain: String, month: Int64) -> Transaction {
        var transaction = AppleNotifications.subscription(id, chain: chain)
        transaction.purchaseDateMs += month * 30 * 86_400_000
        transaction.expiresDateMs! += month * 30 * 86_400_000
        return transaction
    }

    @Test func sourcesAreTheFirstReporterAndTheAnswerIsTheChecks() async throws {
        let harness = try IngestorHarness()
        let first = renewal("300", chain: "300", month: -1)
        let second = renewal("301", chain: "300", month: 0)
        _ = try await harness.receipt("alice", [first])
        #expect(await harness.status(AppleNotifications.v1("DID_RENEW", transactions: [second, first])) == 200)
        // A receipt showing both later confirms them; the renewal stays the notification's.
        _ = try await harness.receipt("alice", [first, second])
        let rpcs = rpcs(harness.repository)

        let explained = try rpcs.explainEntitlement(.init(userID: "alice"))
        let checked = try rpcs.checkEntitlement(.init(userID: "alice"))
        #expect(explained.explanations.map(\.entitlement) == checked.entitlements.map { Optional($0) })
        #expect(explained.evaluatedAtMs == Harness.now)
        let explanation = try #require(explained.explanations.first)
        #expect(explanation.transactions.map(\.transactionID) == ["301", "300"])
        #expect(explanation.transactions.map(\.source) == [.notificationV1, .receipt])
        #expect(explanation.transactions.map(\.decisive) == [true, false])
        #expect(explanation.reason.hasPrefix("ACTIVE: the period of transaction 301 runs until "))
    }

    @Test func everyHistoryPageIsReadForSources() async throws {
        let repository = InMemoryEntitlementStore(clock: Harness.clock)
        let count = HistoryPage.maximumPageSize + 20
        let chain = (0..<count).map { renewal("\(10_000 + $0)", chain: "10000", month: Int64($0 - count)) }
        _ = try await repository.write(FactsWrite(userID: "alice", transactions: chain, source: .receipt))
        let explanation = try #require(
            try rpcs(repository).explainEntitlement(.init(userID: "alice")).explanations.first)
        #expect(explanation.transactions.count == count)
        #expect(explanation.transactions.allSatisfy { $0.source == .receipt }, "the oldest sit past the first page")
    }

    @Test func badRequestsAndFailingStorage() throws {
        let memory = rpcs(InMemoryEntitlementStore(clock: Harness.clock))
        #expect(try memory.explainEntitlement(.init(userID: "nobody")).explanations.isEmpty)
        let missing = #expect(throws: RPCError.self) { _ = try memory.explainEntitlement(.init(userID: "")) }
        #expect(missing?.code == .invalidArgument)
        let negative = #expect(throws: RPCError.self) {
            _ = try memory.explainEntitlement(.init(userID: "a", atMs: -5))
        }
        #expect(negative?.code == .invalidArgument)
        let down = #expect(throws: RPCError.self) {
            _ = try rpcs(UnavailableRepository()).explainEntitlement(.init(userID: "alice"))
        }
        #expect(down?.code == .unavailable)
    }
}
