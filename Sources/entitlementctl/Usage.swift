import ServiceRuntime

/// The `--help` texts: one overview, one page per command.
enum Usage {
    static let exitCodes = """
        exit codes: 0 ok (check: active), 1 not active (check only), 2 usage error,
                    3 error from the server or the connection (status name and message on stderr)
        """

    static func summary(of command: CLIArguments.Command) -> String {
        switch command {
        case .check: "whether the user has access now (or --at TIME), and the entitlements behind it"
        case .explain: "why the user has or lacks each entitlement: the deciding rule and the transactions"
        case .submit: "verify a receipt (base64) or StoreKit 2 signed transaction (JWS) and record it"
        case .history: "the user's purchase and subscription events, newest first"
        case .health: "the server's grpc.health.v1 status (SERVING exits 0)"
        case .watch: "print entitlement changes as they happen, one line each (--json: one object per line)"
        case .refresh: "ask Apple (App Store Server API) about every chain the user owns; record what is new"
        case .reconcile: "ask Apple's notification history for what the webhook missed and apply it (admin port)"
        case .webhooks: "webhook delivery per endpoint (status), or re-deliver changes after a cursor (replay --from)"
        case .appAccountToken: "the user's app account token (UUID) to pass to StoreKit; prints the token alone"
        case .owners: "who owned a purchase (chain) and when, oldest first (admin port)"
        case .grant: "give the user an entitlement by hand for --for DURATION, with a --reason (support role)"
        case .revokeGrant: "end a grant now, with a --reason (support role)"
        case .apple: "ask Apple for a TEST notification and report whether it reached the webhook (admin port)"
        case .extendAll: "extend every active subscription of --product by --days after an outage; --status follows one"
        case .refunds: "the user's refunds as Apple's refund history lists them (admin port)"
        case .extend: "move the user's subscription renewal date later by --days at Apple (support role)"
        case .consumption: "record what the customer used of a purchase, for Apple's refund question"
        case .signOffer: "sign a promotional offer for the user (StoreKit's key id, nonce, timestamp, signature)"
        }
    }

    static var overview: String {
        var lines = ["usage: entitlementctl [--server HOST:PORT] [--token TOKEN] [--json] COMMAND ...", "",
                     "Asks an entitlementd server over gRPC (h2c).", "", "commands:"]
        for command in CLIArguments.Command.allCases {
            let left = "  " + ([command.rawValue] + CLIArguments.positionals(for: command)).joined(separator: " ")
            lines.append(pad(left) + summary(of: command))
        }
        lines += ["", "global flags (each also read from ENTITLEMENTCTL_<FLAG>, e.g. ENTITLEMENTCTL_SERVER):"]
        lines += CLIArguments.globalFlags.map(line)
        lines += [
            "  --help".padding(toLength: 34, withPad: " ", startingAt: 0) + "this text; COMMAND --help for one command",
            "", exitCodes,
        ]
        return lines.joined(separator: "\n")
    }

    static func page(for command: CLIArguments.Command) -> String {
        let synopsis = (["entitlementctl", command.rawValue] + CLIArguments.positionals(for: command)).joined(
            separator: " ")
        var lines = ["usage: \(synopsis) [flags]", "", summary(of: command) + "."]
        if command == .webhooks {
            lines += ["status: per endpoint, pending deliveries, the oldest one's age, delivered, failed",
                      "attempts, dead letters and the last error. replay --from CURSOR: enqueue every change",
                      "after CURSOR again for every endpoint; receivers see duplicates with the same",
                      "Webhook-Id and drop them. Both call the admin port (--admin, entitlementd's --admin-listen)."]
        }
        if command == .submit {
            lines += ["RECEIPT_FILE holds base64 receipt data ('-' reads stdin); a JWS (three base64url",
                      "parts joined by '.') is sent as signed_transaction instead. With --transaction-id ID",
                      "there is no RECEIPT_FILE: the server looks the id up with the App Store Server API."]
        }
        let own = CLIArguments.flags(for: command)
        if !own.isEmpty {
            lines += ["", "flags:"] + own.map(line)
        }
        lines += ["", "global flags (also read from ENTITLEMENTCTL_<FLAG>):"] + CLIArguments.globalFlags.map(line)
        lines += ["", exitCodes]
        return lines.joined(separator: "\n")
    }

    private static func line(_ spec: FlagSpec) -> String {
        let left = spec.isSwitch ? "  --\(spec.name)" : "  --\(spec.name) \(spec.valueName)"
        var text = pad(left) + spec.help
        if let value = spec.defaultValue, !value.isEmpty { text += " (default \(value))" }
        return text
    }

    private static func pad(_ text: String) -> String {
        text.padding(toLength: max(text.count + 2, 34), withPad: " ", startingAt: 0)
    }
}
