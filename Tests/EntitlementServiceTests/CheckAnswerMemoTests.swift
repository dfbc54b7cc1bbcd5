import EntitlementAPI
import EntitlementPorts
@testable import EntitlementService
import Entitlements
import RPCCore
import Synchronization
import Testing
import TestSupport

/// CheckEntitlement's kept answers: whatever the memo hands out is, byte for byte, what judging
/// the facts afresh at that instant encodes to.
struct CheckAnswerMemoTests {
    /// One user's facts, carrying a memo as the store's cache hands them out; replaceable.
    /// `handsOverMemo`: ``keptAnswersOrFacts(userID:)`` answers the memo alone, as the store's
    /// cache does on a hit, instead of the protocol's default (the facts).
    final class CachedFacts: EntitlementRepository {
        let facts = Mutex(UserFacts())
        let factsReads = Atomic<Int>(0)
        let handsOverMemo: Bool
        init(handsOverMemo: Bool) { self.handsOverMemo = handsOverMemo }
        func write(_ write: FactsWrite) async throws -> WriteOutcome { fatalError("not used") }
        func apply(_ notification: NotificationWrite) async throws -> NotificationOutcome { fatalError("not used") }
        func facts(userID: String) throws -> UserFacts {
            factsReads.add(1, ordering: .relaxed)
            return facts.withLock { $0 }
        }
        func keptAnswersOrFacts(userID: String) throws -> KeptAnswersOrFacts {
            let facts = facts.withLock { $0 }
            guard handsOverMemo, let memo = facts.checkAnswers else { return .facts(try self.facts(userID: userID)) }
            return .kept(memo)
        }
        func history(userID: String, productID: String?, pageSize: Int, pageToken: String?) throws -> HistoryPage {
            fatalError("not used")
        }
    }

    static let start: Int64 = 1_750_000_000_000
    static let expiry = start + 10_000
    static let grace = expiry + 5_000

    static func subscription(refunded: Int64? = nil) -> UserFacts {
        UserFacts(
            transactions: [Transaction(
                transactionID: "2", originalTransactionID: "1", productID: "pro.monthly", purchaseDateMs: start - 1_000,
                expiresDateMs: expiry, cancellationDateMs: refunded, subscriptionGroupIdentifier: "group")],
            renewalInfos: ["1": RenewalInfo(originalTransactionID: "1", autoRenewStatus: true,
                                            isInBillingRetryPeriod: true, gracePeriodExpiresDateMs: grace,
                                            signedDateMs: start)])
    }

    @Test(arguments: [false, true])
    func keptAnswersAreTheBytesAFreshJudgementGives(handsOverMemo: Bool) throws {
        let repository = CachedFacts(handsOverMemo: handsOverMemo)
        repository.facts.withLock { $0 = Self.subscription().withCheckAnswerMemo() }
        let clock = ManualClock(Self.start)
        let receipts = ReceiptSubmission(
            verifier: Harness.verifier(ScriptedApple([])),
            signedTransactions: SignedTransactionVerifier(verifier: .init(), bundleID: nil),
            repository: repository, catalog: .empty, verifyCacheTTLMs: nil, now: Harness.clock)
        let rpcs = EntitlementRPCs(repository: repository, catalog: .empty, receipts: receipts,
                                   now: clock.read)

        var previous: [UInt8] = []
        var lastCallRead = false
        func expectFresh(at instant: Int64, productID: String = "", atMs: Int64 = 0, _ what: Comment,
                         kept: Bool? = nil) throws {
            clock.set(instant)
            var request = EntitlementV1.CheckEntitlementRequest()
            request.userID = "alice"
            request.productID = productID
            request.atMs = atMs
            let readsBefore = repository.factsReads.load(ordering: .relaxed)
            let framed = try rpcs.checkEntitlementFramed(request).framed
            let read = repository.factsReads.load(ordering: .relaxed) > readsBefore
            let fresh = RPCResponseBody(try rpcs.checkEntitlement(request)).framed
            #expect(framed == fresh, what)
            if let kept {
                let same = framed.withUnsafeBufferPointer { a in
                    previous.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress }
                }
                #expect(same == kept, what)
                // Handed the memo alone, a kept answer is served without reading the facts.
                if handsOverMemo { #expect(!read, what) }
            }
            previous = framed
            lastCallRead = read
        }
        try expectFresh(at: Self.start, "first call, judged")
        #expect(lastCallRead, "nothing kept yet: the facts are read")
        try expectFresh(at: Self.start, "same millisecond: the same buffer handed out again", kept: true)
        try expectFresh(at: Self.start + 1, "next millisecond: stamped again", kept: false)
        try expectFresh(at: Self.expiry - 1, "the last instant of the period")
        try expectFresh(at: Self.expiry, "expired: in grace, judged again")
        try expectFresh(at: Self.grace - 1, "the last instant of grace")
        try expectFresh(at: Self.grace, "grace over: billing retry")
        try expectFresh(at: Self.start, "the clock went back")
        try expectFresh(at: Self.start, productID: "other", "another filter: nothing matches")
        try expectFresh(at: Self.start, "the first filter again")
        try expectFresh(at: Self.start + 2, atMs: Self.expiry, "an explicit instant is never kept")
        try expectFresh(at: Self.start + 2, "now again")
        repository.facts.withLock { $0 = Self.subscription(refunded: Self.start).withCheckAnswerMemo() }
        try expectFresh(at: Self.start + 2, "refunded: new facts, new memo")
        repository.facts.withLock { $0 = Self.subscription() }
        try expectFresh(at: Self.start + 3, "facts with no memo are judged each time")
        try expectFresh(at: 0, "at the epoch, no time stamp at all")
    }
}
