import Foundation
import ServiceRuntime

extension CommandRunner {
    /// `refunds USER`: the user's refunded transactions from Apple's refund history, newest
    /// refund first, one line each (exit 0; an empty list prints a line saying so).
    func refunds(user: String) throws -> ExitCode {
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "user_id", value: user)]
        let admin = try AdminClient(arguments: arguments, timeout: timeout)
        let body = try admin.call("GET", "/admin/refunds?" + (components.percentEncodedQuery ?? ""))
        let answer = try AdminAnswer.object(body, "refunds answer")
        if json {
            print(body)
            return .ok
        }
        let refunds = answer["refunds"] as? [[String: Any]] ?? []
        guard !refunds.isEmpty else {
            print("no refunds for \(user) in Apple's refund history")
            return .ok
        }
        var lines = ["REFUNDED AT            TRANSACTION          ORIGINAL TX          PRODUCT"]
        for refund in refunds {
            let at = (refund["refund_date_ms"] as? NSNumber).map { Timestamps.iso8601(milliseconds: $0.int64Value) }
            lines.append([at ?? "-", refund["transaction_id"] as? String ?? "",
                          refund["original_transaction_id"] as? String ?? "", refund["product_id"] as? String ?? ""]
                .enumerated().map { $0.offset < 3 ? $0.element.padding(toLength: [22, 20, 20][$0.offset] + 1,
                                                                        withPad: " ", startingAt: 0) : $0.element }
                .joined())
        }
        print(lines.joined(separator: "\n"))
        return .ok
    }
}
