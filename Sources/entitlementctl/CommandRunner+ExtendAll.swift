import Foundation
import ServiceRuntime

extension CommandRunner {
    /// `extend-all --product P --days N [--reason-code 3] [--storefronts USA,CAN]` starts Apple's
    /// mass renewal-date extension and prints its request id; `extend-all --product P --status
    /// REQUEST_ID` prints where it stands (exit 0 once complete, 1 while running).
    func extendAll() throws -> ExitCode {
        guard let product = arguments.local.string("product"), !product.isEmpty else {
            throw FlagError("extend-all needs --product PRODUCT_ID")
        }
        let environment = arguments.local.string("environment") ?? "production"
        let admin = try AdminClient(arguments: arguments, timeout: timeout)
        if let requestID = arguments.local.string("status") {
            var components = URLComponents()
            components.queryItems = [URLQueryItem(name: "product_id", value: product),
                                     URLQueryItem(name: "request_id", value: requestID),
                                     URLQueryItem(name: "environment", value: environment)]
            let body = try admin.call("GET", "/admin/apple/extend-all?" + (components.percentEncodedQuery ?? ""))
            let status = (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
            let complete = status["complete"] as? Bool == true
            if json {
                print(body)
            } else {
                let succeeded = (status["succeeded_count"] as? NSNumber)?.intValue ?? 0
                let failed = (status["failed_count"] as? NSNumber)?.intValue ?? 0
                let done = (status["complete_date_ms"] as? NSNumber).map {
                    " at " + Timestamps.iso8601(milliseconds: $0.int64Value)
                } ?? ""
                print("\(requestID): \(complete ? "complete" + done : "running"), \(succeeded) extended, "
                      + "\(failed) failed")
            }
            return complete ? .ok : .inactive
        }
        guard let days = try arguments.local.int("days", range: 1...90) else {
            throw FlagError("extend-all needs --days N (1 to 90) to start, or --status REQUEST_ID to follow one")
        }
        let reasonCode = try arguments.local.int("reason-code", range: 0...3) ?? 3
        let storefronts = (arguments.local.string("storefronts") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).uppercased()
        }.filter { !$0.isEmpty }
        let request = try JSONSerialization.data(withJSONObject: [
            "product_id": product, "days": days, "reason_code": reasonCode, "storefronts": storefronts,
            "environment": environment,
        ] as [String: Any])
        let body = try admin.call("POST", "/admin/apple/extend-all", body: request)
        let answer = (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
        let requestID = answer["request_id"] as? String ?? "?"
        print(json ? body : "mass extension \(requestID) started: \(product) +\(days) days "
              + "(follow it: entitlementctl extend-all --product \(product) --status \(requestID))")
        return .ok
    }
}
