import EntitlementPorts
import Entitlements
import Testing
import Webhooks

/// The webhook body is the canonical proto3 JSON of EntitlementChange, byte for byte what
/// Python's protobuf writes for the same message.
///
/// The expected strings were produced once with grpcio-tools' protobuf (5.x):
/// `json.dumps(json_format.MessageToDict(msg), ensure_ascii=False, separators=(",", ":"))`
/// for the message built with the same values; the interop suite re-checks live bodies.
struct ChangeJSONTests {
    @Test func everyFieldSetMatchesPythonJSONFormat() {
        let entitlement = Entitlement(
            productID: "pro.monthly", originalTransactionID: "1000000000000001", state: .gracePeriod,
            purchasedAtMs: 1_700_000_000_000, expiresAtMs: 1_702_600_000_000, gracePeriodExpiresAtMs: 1_703_000_000_000,
            willAutoRenew: true, isTrialPeriod: true, isInIntroOfferPeriod: true, productType: .autoRenewable,
            subscriptionGroupID: "2100001", environment: .sandbox, latestTransactionID: "1000000000000009",
            entitlementID: "pro")
        let change = EntitlementChange(
            sequence: 42, changeID: "log1-42", userID: "alice \"ü\"\n", entitlement: entitlement,
            previousState: .active, occurredAtMs: 1_702_600_000_001, causeEventID: "ev-\u{1}")
        let python = #"{"cursor":"00000000000000000042","changeId":"log1-42","userId":"alice \"ü\"\n","entitlement":"#
            + #"{"productId":"pro.monthly","originalTransactionId":"1000000000000001","#
            + #""state":"ENTITLEMENT_STATE_GRACE_PERIOD","active":true,"purchasedAtMs":"1700000000000","#
            + #""expiresAtMs":"1702600000000","gracePeriodExpiresAtMs":"1703000000000","willAutoRenew":true,"#
            + #""isTrialPeriod":true,"isInIntroOfferPeriod":true,"productType":"PRODUCT_TYPE_AUTO_RENEWABLE","#
            + #""subscriptionGroupId":"2100001","environment":"ENVIRONMENT_SANDBOX","#
            + #""latestTransactionId":"1000000000000009","entitlementId":"pro"},"#
            + #""previousState":"ENTITLEMENT_STATE_ACTIVE","occurredAtMs":"1702600000001","causeEventId":"ev-\u0001"}"#
        #expect(ChangeJSON.body(change, cursor: "00000000000000000042") == python)
    }

    /// A grant's change: its chain id is internal, so the body has no originalTransactionId and
    /// the grant id in grantId (field 16), as Python writes the message the API would send.
    @Test func aGrantsChangeCarriesItsGrantIDAndNoChain() {
        let grant = Grant(grantID: "g00000000000000a1", entitlementID: "pro", startsAtMs: 1_700_000_000_000,
                          expiresAtMs: 1_700_604_800_000, actor: "alice", reason: "goodwill")
        let entitlement = grant.entitlement(at: .now(1_700_000_000_001))!
        let change = EntitlementChange(sequence: 7, changeID: "log1-7", userID: "u", entitlement: entitlement,
                                       previousState: nil, occurredAtMs: 1_700_000_000_001,
                                       causeEventID: "grant:g00000000000000a1")
        let python = #"{"cursor":"c","changeId":"log1-7","userId":"u","entitlement":{"#
            + #""state":"ENTITLEMENT_STATE_ACTIVE","active":true,"purchasedAtMs":"1700000000000","#
            + #""expiresAtMs":"1700604800000","productType":"PRODUCT_TYPE_PROMOTIONAL","#
            + #""environment":"ENVIRONMENT_PRODUCTION","entitlementId":"pro","grantId":"g00000000000000a1"},"#
            + #""occurredAtMs":"1700000000001","causeEventId":"grant:g00000000000000a1"}"#
        #expect(ChangeJSON.body(change, cursor: "c") == python)
    }

    /// Defaults left out: no previous state (first appearance), inactive, no expiry, no
    /// grace, no cause (a time-driven change), no group, no entitlement id.
    @Test func defaultValuesAreLeftOutLikePythonJSONFormat() {
        let entitlement = Entitlement(
            productID: "lifetime", originalTransactionID: "7", state: .revoked, purchasedAtMs: 5, expiresAtMs: 0,
            productType: .nonConsumable, environment: .production, latestTransactionID: "7", entitlementID: "")
        let change = EntitlementChange(sequence: 1, changeID: "c", userID: "u", entitlement: entitlement,
                                       previousState: nil, occurredAtMs: 9, causeEventID: "")
        let python = #"{"cursor":"1","changeId":"c","userId":"u","entitlement":{"productId":"lifetime","#
            + #""originalTransactionId":"7","state":"ENTITLEMENT_STATE_REVOKED","purchasedAtMs":"5","#
            + #""productType":"PRODUCT_TYPE_NON_CONSUMABLE","environment":"ENVIRONMENT_PRODUCTION","#
            + #""latestTransactionId":"7"},"occurredAtMs":"9"}"#
        #expect(ChangeJSON.body(change, cursor: "1") == python)
    }

    @Test(arguments: [
        (EntitlementState.active, "ENTITLEMENT_STATE_ACTIVE"), (.gracePeriod, "ENTITLEMENT_STATE_GRACE_PERIOD"),
        (.billingRetry, "ENTITLEMENT_STATE_BILLING_RETRY"), (.expired, "ENTITLEMENT_STATE_EXPIRED"),
        (.revoked, "ENTITLEMENT_STATE_REVOKED"),
    ])
    func statesAreNamedAsInTheProto(state: EntitlementState, name: String) {
        #expect(ChangeJSON.stateName(state) == name)
    }
}
