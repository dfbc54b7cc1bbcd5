/// The rules of an operator's renewal-date extension, checked before Apple is asked: Apple
/// refuses the same things, but a caller is told at once and Apple's rate is not spent.
public enum RenewalExtensionRules {
    /// Apple's `extendByDays` limits.
    public static let days: ClosedRange<Int> = 1...90
    /// Apple's `extendReasonCode`s: 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue.
    public static let reasonCodes: ClosedRange<Int> = 0...3

    /// Why the request cannot go to Apple, in words the caller can act on; nil when it can.
    /// `requestID` empty means "make one"; otherwise it must be a UUID (Apple's
    /// `requestIdentifier`).
    public static func refusal(originalTransactionID: String, extendByDays: Int, reasonCode: Int,
                               requestID: String) -> String? {
        if originalTransactionID.isEmpty || !originalTransactionID.utf8.allSatisfy({ (48...57).contains($0) }) {
            return "original_transaction_id must be the subscription's original transaction id (digits)"
        }
        if !days.contains(extendByDays) {
            return "extend_by_days must be 1 to 90 (Apple's limit); \(extendByDays) is not"
        }
        if !reasonCodes.contains(reasonCode) {
            return "reason_code must be 0 (undeclared), 1 (customer satisfaction), 2 (other) or 3 (service "
                + "issue); \(reasonCode) is not"
        }
        if !requestID.isEmpty, AppAccountToken.canonical(requestID) == nil {
            return "request_id must be a UUID (Apple's requestIdentifier), or empty to have one made"
        }
        return nil
    }

    /// Apple's name for an `extendReasonCode`.
    public static func reasonName(_ code: Int) -> String {
        switch code {
        case 1: "customer satisfaction"
        case 2: "other"
        case 3: "service issue"
        default: "undeclared"
        }
    }

    /// The history reason of an extension: what was asked and why, e.g. "7 days, service issue".
    public static func reason(extendByDays: Int, reasonCode: Int) -> String {
        "\(extendByDays) day\(extendByDays == 1 ? "" : "s"), \(reasonName(reasonCode))"
    }

    /// The event id of the extension with Apple's `requestIdentifier`: one request, one event,
    /// however often it is retried.
    public static func eventID(requestID: String) -> String {
        "renewal_extended:" + requestID
    }
}
