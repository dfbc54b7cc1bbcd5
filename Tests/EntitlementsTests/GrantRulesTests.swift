import Entitlements
import Testing

/// Grants under the entitlement rules, by tables: which filters find a grant, its state at an
/// instant (revocation not retroactive), a grant beside a subscription, and Explain's sentence.
struct GrantRulesTests {
    static let proCatalog = try! catalog("""
        {"products": [{"product_id": "pro.monthly", "type": "auto_renewable", "entitlement_id": "pro"},
                      {"product_id": "pro.yearly", "type": "auto_renewable", "entitlement_id": "pro"}]}
        """)

    static func proGrant(revoked: Int64? = nil) -> Grant {
        Grant(grantID: "g1", entitlementID: "pro", startsAtMs: Day.feb1, expiresAtMs: Day.apr1, actor: "alice",
              reason: "outage goodwill", revokedAtMs: revoked, revokedBy: revoked == nil ? "" : "bob",
              revocationReason: revoked == nil ? "" : "abuse")
    }

    struct Filter: Sendable, CustomTestStringConvertible {
        var product: String, entitlement: String, withCatalog: Bool, finds: Bool
        init(product: String = "", entitlement: String = "", withCatalog: Bool = true, finds: Bool) {
            (self.product, self.entitlement, self.withCatalog, self.finds) = (product, entitlement, withCatalog, finds)
        }
        var testDescription: String { "product '\(product)' entitlement '\(entitlement)' catalog \(withCatalog)" }
    }

    @Test(arguments: [
        Filter(finds: true),
        Filter(entitlement: "pro", finds: true),
        Filter(product: "pro.monthly", finds: true),
        Filter(product: "pro.yearly", entitlement: "pro", finds: true),
        Filter(product: "pro", finds: true),  // not in the catalog: its own entitlement id
        Filter(product: "pro.monthly", entitlement: "other", finds: false),
        Filter(entitlement: "other", finds: false),
        Filter(product: "basic.monthly", finds: false),
        Filter(product: "pro", withCatalog: false, finds: true),
        Filter(product: "pro.monthly", withCatalog: false, finds: false),
    ])
    func filtersFindAGrantByItsEntitlement(_ filter: Filter) {
        let facts = UserFacts(grants: [Self.proGrant()])
        let answer = EntitlementRules.check(
            facts, productID: filter.product, entitlementID: filter.entitlement, at: .now(Day.mar1),
            catalog: filter.withCatalog ? Self.proCatalog : .empty)
        #expect(answer.active == filter.finds)
        #expect(answer.entitlements.map(\.grantID) == (filter.finds ? ["g1"] : []))
    }

    struct Instant: Sendable, CustomTestStringConvertible {
        var time: EvaluationTime, revoked: Int64?, state: EntitlementState?
        var testDescription: String { "\(time) revoked \(revoked.map(String.init) ?? "never")" }
    }

    @Test(arguments: [
        Instant(time: .now(Day.jan1), revoked: nil, state: nil),  // not started: in no answer
        Instant(time: .now(Day.feb1), revoked: nil, state: .active),
        Instant(time: .now(Day.mar1), revoked: nil, state: .active),
        Instant(time: .now(Day.apr1), revoked: nil, state: .expired),
        Instant(time: .now(Day.mar1), revoked: Day.mar1 - 1, state: .revoked),
        Instant(time: .at(Day.mar1), revoked: Day.mar1 + 1, state: .active),  // not retroactive
        Instant(time: .at(Day.mar1), revoked: Day.mar1, state: .revoked),
        Instant(time: .at(Day.apr15), revoked: Day.mar1, state: .revoked),
    ])
    func aGrantsStateAtAnInstant(_ instant: Instant) {
        let entitlement = Self.proGrant(revoked: instant.revoked).entitlement(at: instant.time)
        #expect(entitlement?.state == instant.state)
        if let entitlement {
            #expect(entitlement.productType == .promotional && entitlement.productID.isEmpty)
            #expect(entitlement.purchasedAtMs == Day.feb1 && entitlement.expiresAtMs == Day.apr1)
            #expect(entitlement.grantID == "g1" && entitlement.entitlementID == "pro")
        }
    }

    @Test(arguments: [
        (subscriptionExpires: Day.mar1 + Day.ms, revoked: Int64?.none, active: true),   // both
        (subscriptionExpires: Day.feb1, revoked: nil, active: true),                     // the grant
        (subscriptionExpires: Day.apr15, revoked: Day.feb1, active: true),               // the subscription
        (subscriptionExpires: Day.feb1, revoked: Day.feb1, active: false),               // neither
    ])
    func aGrantAndASubscriptionAreActiveIfEitherIs(subscriptionExpires: Int64, revoked: Int64?, active: Bool) {
        let facts = UserFacts(transactions: [period("1", bought: Day.jan1, expires: subscriptionExpires)],
                              grants: [Self.proGrant(revoked: revoked)])
        let answer = EntitlementRules.check(facts, productID: "", entitlementID: "pro", at: .now(Day.mar1),
                                            catalog: Self.proCatalog)
        #expect(answer.active == active)
        #expect(answer.entitlements.count == 2)
    }

    @Test func aGrantStartingLaterEndsTheKeptAnswerAtItsStart() {
        let grant = Grant(grantID: "g2", entitlementID: "pro", startsAtMs: Day.apr1, expiresAtMs: Day.may1,
                          actor: "alice", reason: "r")
        let answer = EntitlementRules.check(UserFacts(grants: [grant]), productID: "", entitlementID: "pro",
                                            at: .now(Day.mar1), catalog: .empty)
        #expect(!answer.active)
        #expect(answer.sameAnswerMs.upperBound == Day.apr1 - 1)
    }

    @Test(arguments: [
        (revoked: Int64?.none, at: Day.mar1, sentence: "ACTIVE: active because of grant g1 by alice: outage goodwill"),
        (revoked: nil, at: Day.apr15,
         sentence: "EXPIRED: grant g1 by alice: outage goodwill ended at 2024-04-01T00:00:00Z"),
        (revoked: Day.mar1, at: Day.mar1,
         sentence: "REVOKED: grant g1 by alice: outage goodwill was revoked at 2024-03-01T00:00:00Z by bob: abuse"),
    ])
    func explainNamesTheGrantItsActorAndReason(revoked: Int64?, at: Int64, sentence: String) {
        let explanations = EntitlementRules.explain(
            UserFacts(grants: [Self.proGrant(revoked: revoked)]), productID: "", entitlementID: "",
            at: .now(at), catalog: Self.proCatalog)
        #expect(explanations.map(\.reason) == [sentence])
    }

    @Test(arguments: [
        (entitlement: "", reason: "r", starts: Day.jan1, expires: Day.feb1, refused: "entitlement_id is required"),
        (entitlement: "pro", reason: " ", starts: Day.jan1, expires: Day.feb1, refused: "reason is required"),
        (entitlement: "pro", reason: "r", starts: Day.feb1, expires: Day.feb1, refused: "must be after the start"),
        (entitlement: "pro", reason: "r", starts: Day.jan1, expires: Day.jan1 + Grant.maximumDurationMs + 1,
         refused: "at most 10 years"),
        (entitlement: "pro", reason: "r", starts: Day.jan1, expires: Day.jan1 + Grant.maximumDurationMs,
         refused: ""),
    ])
    func grantRequestsAreRefusedWithWhatToDo(entitlement: String, reason: String, starts: Int64, expires: Int64,
                                             refused: String) {
        let refusal = Grant.refusal(entitlementID: entitlement, reason: reason, startsAtMs: starts,
                                    expiresAtMs: expires)
        if refused.isEmpty {
            #expect(refusal == nil)
        } else {
            #expect(refusal?.contains(refused) == true, "\(refusal ?? "nil")")
        }
    }
}
