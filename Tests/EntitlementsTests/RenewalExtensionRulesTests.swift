import Entitlements
import Testing

/// What an operator's extension may ask for, checked before Apple is: Apple's limits by table.
struct RenewalExtensionRulesTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var id = "1000000000000001", days = 7, reason = 1, requestID = ""
        /// The words the refusal names; nil: allowed.
        var refusal: String?
        var testDescription: String { "\(id) \(days)d reason \(reason) '\(requestID)' -> \(refusal ?? "ok")" }
    }

    static let cases: [Case] = [
        Case(refusal: nil),
        Case(days: 1, refusal: nil),
        Case(days: 90, reason: 3, refusal: nil),
        Case(reason: 0, requestID: "3F2504E0-4F89-41D3-9A0C-0305E82C3301", refusal: nil),
        Case(days: 0, refusal: "extend_by_days"),
        Case(days: 91, refusal: "extend_by_days"),
        Case(days: -1, refusal: "extend_by_days"),
        Case(reason: 4, refusal: "reason_code"),
        Case(reason: -1, refusal: "reason_code"),
        Case(requestID: "ticket-42", refusal: "request_id"),
        Case(requestID: "3f2504e0-4f89-41d3-9a0c-0305e82c330", refusal: "request_id"),
        Case(id: "", refusal: "original_transaction_id"),
        Case(id: "10000x", refusal: "original_transaction_id"),
        Case(id: "1/../2", refusal: "original_transaction_id"),
    ]

    @Test(arguments: cases)
    func refusesWhatAppleWould(_ c: Case) {
        let refusal = RenewalExtensionRules.refusal(originalTransactionID: c.id, extendByDays: c.days,
                                                    reasonCode: c.reason, requestID: c.requestID)
        if let words = c.refusal {
            #expect(refusal?.contains(words) == true, "\(refusal ?? "allowed")")
        } else {
            #expect(refusal == nil)
        }
    }

    @Test func historySaysHowLongAndWhyInApplesWords() {
        #expect(RenewalExtensionRules.reason(extendByDays: 1, reasonCode: 0) == "1 day, undeclared")
        #expect(RenewalExtensionRules.reason(extendByDays: 7, reasonCode: 1) == "7 days, customer satisfaction")
        #expect(RenewalExtensionRules.reason(extendByDays: 30, reasonCode: 2) == "30 days, other")
        #expect(RenewalExtensionRules.reason(extendByDays: 90, reasonCode: 3) == "90 days, service issue")
        #expect(RenewalExtensionRules.eventID(requestID: "abc") == "renewal_extended:abc")
    }
}
