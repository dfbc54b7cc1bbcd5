import Foundation
import HTTPClient

/// The subcommands that drive a running simulator through its control API and print its JSON.
enum ClientCommand {
    static let usage = """
        usage: appstore-sim serve [flags]            (appstore-sim serve --help for its flags)
               appstore-sim COMMAND [ARGS] [--sim URL]

        Every command talks to --sim (default $APPSTORE_SIM_URL or http://127.0.0.1:8090) and prints JSON.
          purchase --product ID [--type auto_renewable|non_consumable|consumable|non_renewing]
                   [--period 30d | --period-ms N] [--trial | --intro] [--user-token T]
                   [--app-account-token UUID] [--environment production|sandbox]
          renew ORIGINAL_TX                     the next renewal happens (the sim clock moves to it)
          fail-billing ORIGINAL_TX [--grace 16d] [--defer]
          recover ORIGINAL_TX
          auto-renew ORIGINAL_TX on|off
          change-product ORIGINAL_TX NEW_PRODUCT [--downgrade]
          refund TX | reverse-refund TX
          refund-request TX [--reason R] [--ago 13h]
                                                the customer asks for a refund: CONSUMPTION_REQUEST
          decline-refund TX                     Apple declines it: REFUND_DECLINED
          consumption-answers                   the consumption answers Apple received, by transaction
          expire ORIGINAL_TX [--defer]
          advance DURATION                      e.g. 7d, 2h, 90s
          receipt TX                            the customer's latest receipt and the chain
          clock | deliveries                    simulated time; recent webhook deliveries
          drop-webhooks all|none|N              drop every webhook delivery, none, or every Nth
          api-fault 429|5xx [--count N] [--retry-after 2s] [--error-code C]
                                                the next N Server API requests answer this (count 0 disarms)
          api-requests                          Server API requests served, by endpoint and status

        Time: the simulated clock starts at the real now and keeps pace with it; subscriptions
        renew by themselves when a period ends (checked on every request). renew, fail-billing,
        expire and advance move the clock forward. Notifications are signed at simulated time,
        but entitlementd judges entitlements at its own real clock and ignores what is dated in
        its future: in demos use short periods (--period-ms 60000, or serve --period-scale) and
        let real time cross period ends, or advance only by a period at a time and wait for the
        real clock to catch up (appstore-sim clock shows the offset).
        """

    /// Switches take no value; every other `--name` takes the next argument.
    private static let switches: Set<String> = ["trial", "intro", "downgrade", "defer"]

    static func run(_ command: String, _ arguments: [String]) async -> Int32 {
        var positional: [String] = []
        var options: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                positional.append(argument)
                continue
            }
            let name = String(argument.dropFirst(2))
            if switches.contains(name) {
                options[name] = "true"
            } else if index < arguments.count {
                options[name] = arguments[index]
                index += 1
            } else {
                return fail("--\(name) needs a value")
            }
        }
        let base = options.removeValue(forKey: "sim")
            ?? ProcessInfo.processInfo.environment["APPSTORE_SIM_URL"] ?? "http://127.0.0.1:8090"
        guard let (method, path, body) = request(command, positional, options) else {
            return fail("cannot understand '\(([command] + arguments).joined(separator: " "))'\n\n\(usage)")
        }
        guard let url = URL(string: base + path) else { return fail("--sim \(base) is not a URL") }
        return await send(method, url, body)
    }

    /// The control API call for one command line, or nil when it is not one.
    private static func request(
        _ command: String, _ positional: [String], _ options: [String: String]
    ) -> (String, String, [String: Any])? {
        func one(_ key: String, _ extra: [String: Any] = [:]) -> (String, String, [String: Any])? {
            guard positional.count == 1 else { return nil }
            return ("POST", "/control/\(command)", extra.merging([key: positional[0]]) { $1 })
        }
        switch command {
        case "purchase":
            guard positional.isEmpty, let product = options["product"] else { return nil }
            var body: [String: Any] = ["product_id": product, "type": options["type"] ?? "auto_renewable"]
            body["period"] = options["period"]
            body["period_ms"] = options["period-ms"]
            body["user_token"] = options["user-token"]
            body["app_account_token"] = options["app-account-token"]
            body["environment"] = options["environment"]
            if options["trial"] != nil { body["offer"] = "trial" }
            if options["intro"] != nil { body["offer"] = "intro" }
            return ("POST", "/control/purchase", body)
        case "renew", "recover":
            return one("original_transaction_id")
        case "fail-billing":
            var extra: [String: Any] = ["defer": options["defer"] != nil]
            extra["grace"] = options["grace"]
            return one("original_transaction_id", extra)
        case "expire":
            return one("original_transaction_id", ["defer": options["defer"] != nil])
        case "refund", "reverse-refund", "receipt", "decline-refund":
            return one("transaction_id")
        case "refund-request":
            var extra: [String: Any] = [:]
            extra["reason"] = options["reason"]
            extra["ago"] = options["ago"]
            return one("transaction_id", extra)
        case "consumption-answers":
            return positional.isEmpty ? ("GET", "/control/consumption-answers", [:]) : nil
        case "advance":
            return one("by")
        case "auto-renew":
            guard positional.count == 2, ["on", "off"].contains(positional[1]) else { return nil }
            return (
                "POST", "/control/auto-renew",
                ["original_transaction_id": positional[0], "enabled": positional[1] == "on"]
            )
        case "change-product":
            guard positional.count == 2 else { return nil }
            return (
                "POST", "/control/change-product",
                [
                    "original_transaction_id": positional[0], "product_id": positional[1],
                    "downgrade": options["downgrade"] != nil,
                ]
            )
        case "drop-webhooks":
            guard positional.count == 1 else { return nil }
            return ("POST", "/control/drop-webhooks", ["drop": positional[0]])
        case "api-fault":
            guard positional.count == 1 else { return nil }
            var body: [String: Any] = ["status": positional[0], "count": options["count"] ?? "1"]
            body["retry_after"] = options["retry-after"]
            body["error_code"] = options["error-code"]
            return ("POST", "/control/api-fault", body)
        case "api-requests":
            return positional.isEmpty ? ("GET", "/control/api-requests", [:]) : nil
        case "clock", "deliveries":
            return positional.isEmpty ? ("GET", "/control/\(command)", [:]) : nil
        default:
            return nil
        }
    }

    /// One control API call through the project's HTTP client; prints the answer's body.
    private static func send(_ method: String, _ url: URL, _ body: [String: Any]) async -> Int32 {
        var request = HTTPClientRequest(method: method, url: url.absoluteString)
        if method == "POST" {
            request.body = (try? JSONSerialization.data(withJSONObject: body)).map { Array($0) }
            request.headers.append((name: "Content-Type", value: "application/json"))
        }
        let client = HTTPClient(maxConnectionsPerHost: 1)
        do {
            // Control calls answer at once; the minute only bounds a hung simulator.
            let response = try await client.send(request, timeout: .seconds(60))
            FileHandle.standardOutput.write(Data(response.body))
            return (200..<300).contains(response.status) ? 0 : 1
        } catch {
            let reason = (error as? HTTPClientError)?.kind.summary ?? "\(error)"
            return fail("cannot reach the simulator at \(url.absoluteString): \(reason)")
        }
    }

    private static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("appstore-sim: \(message)\n".utf8))
        return 2
    }
}
