/// What the app's backend says a customer used of a purchase, for Apple's refund question
/// (CONSUMPTION_REQUEST): Apple's consumption fields, as the service stores and sends them.
public struct ConsumptionData: Sendable, Hashable {
    public var userID: String
    public var transactionID: String
    /// Apple refuses an answer without the customer's consent; the service never sends one.
    public var customerConsented: Bool
    /// Milli-percent, 0...100000 (Apple's unit).
    public var consumptionPercentage: Int
    /// One of ``ConsumptionRules/deliveryStatuses``.
    public var deliveryStatus: String
    public var sampleContentProvided: Bool
    public var recordedAtMs: Int64

    public init(userID: String, transactionID: String, customerConsented: Bool, consumptionPercentage: Int,
                deliveryStatus: String, sampleContentProvided: Bool, recordedAtMs: Int64) {
        self.userID = userID
        self.transactionID = transactionID
        self.customerConsented = customerConsented
        self.consumptionPercentage = consumptionPercentage
        self.deliveryStatus = deliveryStatus
        self.sampleContentProvided = sampleContentProvided
        self.recordedAtMs = recordedAtMs
    }
}

/// Apple's request for consumption data about one transaction (CONSUMPTION_REQUEST, V1 or V2).
public struct ConsumptionRequest: Sendable, Hashable {
    public var transactionID: String
    public var environment: Environment
    /// When Apple asked (V2 signedDate; V1: when it arrived): the 12 hours count from here.
    public var requestedAtMs: Int64
    /// Apple's `consumptionRequestReason` ("" when Apple gave none).
    public var reason: String

    public init(transactionID: String, environment: Environment, requestedAtMs: Int64, reason: String) {
        self.transactionID = transactionID
        self.environment = environment
        self.requestedAtMs = requestedAtMs
        self.reason = reason
    }
}

/// The refund outcome the developer asks Apple for in every consumption answer
/// (`--refund-preference`); ``none`` leaves the field out.
public enum RefundPreference: String, Sendable, CaseIterable {
    case none
    case decline
    case grantFull = "grant-full"
    case grantProrated = "grant-prorated"

    /// Apple's `refundPreference` value; nil for ``none``.
    public var appleName: String? {
        switch self {
        case .none: nil
        case .decline: "DECLINE"
        case .grantFull: "GRANT_FULL"
        case .grantProrated: "GRANT_PRORATED"
        }
    }
}

/// The rules of Apple's consumption question, pure so the tables in the tests are the policy.
public enum ConsumptionRules {
    /// Apple accepts an answer for 12 hours after its request.
    public static let answerWindowMs: Int64 = 12 * 3_600_000
    /// Apple's DeliveryStatus names.
    public static let deliveryStatuses: [String] = [
        "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
        "UNDELIVERED_OTHER",
    ]
    public static let percentages: ClosedRange<Int> = 0...100_000

    /// Why RecordConsumption's input cannot be stored, naming the field; nil when it can.
    public static func refusal(userID: String, transactionID: String, consumptionPercentage: Int,
                               deliveryStatus: String) -> String? {
        if userID.isEmpty { return "user_id is required" }
        if transactionID.isEmpty || !transactionID.utf8.allSatisfy({ (48...57).contains($0) }) {
            return "transaction_id must be the App Store transaction id (digits) the customer asked a refund for"
        }
        if !percentages.contains(consumptionPercentage) {
            return "consumption_percentage is in milli-percent, 0 to 100000 (100%); \(consumptionPercentage) is not"
        }
        if !deliveryStatuses.contains(deliveryStatus) {
            return "delivery_status must be one of Apple's names: " + deliveryStatuses.joined(separator: ", ")
        }
        return nil
    }

    /// What to do about a request at `nowMs`.
    public enum Decision: Sendable, Hashable {
        /// Send the answer now.
        case send
        /// No data yet, or data without the customer's consent: nothing is sent (a later
        /// RecordConsumption may still answer within the window).
        case wait
        /// Apple's 12 hours are over: never send.
        case expired
    }

    public static func decision(requestedAtMs: Int64, data: ConsumptionData?, nowMs: Int64) -> Decision {
        guard nowMs < requestedAtMs + answerWindowMs else { return .expired }
        guard let data, data.customerConsented else { return .wait }
        return .send
    }

    /// How long to wait before retry number `attempts` (1-based) of an answer Apple could not
    /// take (5xx, 429, no answer): 30 s doubling, at most 15 min; never past the window, which
    /// the caller checks.
    public static func retryDelayMs(attempts: Int) -> Int64 {
        min(30_000 << Int64(min(max(attempts - 1, 0), 10)), 900_000)
    }
}
