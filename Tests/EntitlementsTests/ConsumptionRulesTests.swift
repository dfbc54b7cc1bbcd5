import Entitlements
import Testing

/// Apple's consumption question as rules: what RecordConsumption refuses, when an answer may
/// go (consent, the 12 hours), how retries spread, and the refund preference's names.
struct ConsumptionRulesTests {
    struct Input: Sendable, CustomTestStringConvertible {
        var user = "alice", transaction = "2000000000000001", percentage = 50_000, status = "DELIVERED"
        var refusal: String?
        var testDescription: String { "'\(user)' '\(transaction)' \(percentage) '\(status)' -> \(refusal ?? "ok")" }
    }

    static let inputs: [Input] = [
        Input(refusal: nil),
        Input(percentage: 0, status: "UNDELIVERED_OTHER", refusal: nil),
        Input(percentage: 100_000, status: "UNDELIVERED_SERVER_OUTAGE", refusal: nil),
        Input(percentage: 100_001, refusal: "consumption_percentage"),
        Input(percentage: -1, refusal: "consumption_percentage"),
        Input(status: "delivered", refusal: "delivery_status"),
        Input(status: "", refusal: "delivery_status"),
        Input(status: "REFUNDED", refusal: "delivery_status"),
        Input(user: "", refusal: "user_id"),
        Input(transaction: "", refusal: "transaction_id"),
        Input(transaction: "12a", refusal: "transaction_id"),
    ]

    @Test(arguments: inputs)
    func recordConsumptionRefusesWhatAppleWould(_ input: Input) {
        let refusal = ConsumptionRules.refusal(userID: input.user, transactionID: input.transaction,
                                               consumptionPercentage: input.percentage, deliveryStatus: input.status)
        if let words = input.refusal {
            #expect(refusal?.contains(words) == true, "\(refusal ?? "allowed")")
        } else {
            #expect(refusal == nil)
        }
    }

    static let hour: Int64 = 3_600_000
    static func data(consented: Bool) -> ConsumptionData {
        ConsumptionData(userID: "alice", transactionID: "1", customerConsented: consented, consumptionPercentage: 0,
                        deliveryStatus: "DELIVERED", sampleContentProvided: false, recordedAtMs: 0)
    }

    @Test(arguments: [
        (Int64(0), Optional(data(consented: true)), ConsumptionRules.Decision.send),
        (11 * hour, Optional(data(consented: true)), .send),
        (12 * hour - 1, Optional(data(consented: true)), .send),
        (12 * hour, Optional(data(consented: true)), .expired),
        (Int64(0), Optional(data(consented: false)), .wait),
        (Int64(0), nil, .wait),
        (13 * hour, Optional(data(consented: false)), .expired),
        (13 * hour, nil, .expired),
    ])
    func anAnswerGoesOnlyWithConsentWithinTwelveHours(after ms: Int64, data: ConsumptionData?,
                                                     decision: ConsumptionRules.Decision) {
        let asked: Int64 = 1_700_000_000_000
        #expect(ConsumptionRules.decision(requestedAtMs: asked, data: data, nowMs: asked + ms) == decision)
    }

    @Test func retriesWaitThirtySecondsDoublingToFifteenMinutes() {
        #expect((1...8).map(ConsumptionRules.retryDelayMs) == [30_000, 60_000, 120_000, 240_000, 480_000, 900_000,
                                                               900_000, 900_000])
        #expect(ConsumptionRules.retryDelayMs(attempts: 100) == 900_000)
    }

    @Test func refundPreferencesUseApplesNamesAndNoneSendsNothing() {
        #expect(RefundPreference.allCases.map(\.appleName) == [nil, "DECLINE", "GRANT_FULL", "GRANT_PRORATED"])
        #expect(RefundPreference.allCases.map(\.rawValue) == ["none", "decline", "grant-full", "grant-prorated"])
    }
}
