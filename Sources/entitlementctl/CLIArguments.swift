import ServiceRuntime

/// The command line, parsed: which command, its positional arguments, and its flags.
///
/// Global flags (server, token, output, timeout) may appear anywhere and are also read from
/// `ENTITLEMENTCTL_<FLAG>`; a command's own flags come from the command line only, so a
/// stray `ENTITLEMENTCTL_PRODUCT` in the environment cannot narrow a check silently.
struct CLIArguments {
    enum Command: String, CaseIterable {
        case check, explain, submit, history, health, watch, refresh, reconcile, webhooks
        case appAccountToken = "app-account-token", owners
        case grant
        case revokeGrant = "revoke-grant"
        case apple
        case extendAll = "extend-all"
        case refunds
        case extend
        case consumption
        case signOffer = "sign-offer"
    }

    static let environmentPrefix = "ENTITLEMENTCTL"

    static let globalFlags: [FlagSpec] = [
        FlagSpec("server", value: "HOST:PORT", default: "127.0.0.1:50051", help: "the entitlementd to ask"),
        FlagSpec(
            "token", value: "TOKEN", help: "sent as 'authorization: Bearer TOKEN' (servers run with --auth-tokens-file)"
        ),
        FlagSpec(
            "json", isSwitch: true, help: "print one JSON object (the proto's JSON field names) instead of a table"),
        FlagSpec(
            "timeout", value: "DURATION", default: "30s",
            help: "give up on each call after this long (500ms, 30s, 5m)"),
        FlagSpec("admin", value: "HOST:PORT",
                 help: "entitlementd's --admin-listen address, where admin operations (reconcile, webhooks, "
                     + "owners) are served; they need it"),
    ]

    static func flags(for command: Command) -> [FlagSpec] {
        switch command {
        case .check:
            [
                FlagSpec("product", value: "PRODUCT_ID", help: "only this product"),
                FlagSpec("entitlement", value: "ENTITLEMENT_ID", help: "only products that unlock this entitlement"),
                FlagSpec(
                    "at", value: "TIME", help: "evaluate at this instant: ISO 8601 (2026-04-01T00:00:00Z) or Unix ms"),
            ]
        case .explain:
            [FlagSpec("product", value: "PRODUCT_ID", help: "only this product"),
             FlagSpec("entitlement", value: "ENTITLEMENT_ID", help: "only products that unlock this entitlement"),
             FlagSpec("at", value: "TIME", help: "explain at this instant: ISO 8601 (2026-04-01T00:00:00Z) or Unix ms")]
        case .submit:
            [FlagSpec("transaction-id", value: "ID",
                      help: "look up this App Store transaction id with the Server API instead of a RECEIPT_FILE")]
        case .history:
            [FlagSpec("product", value: "PRODUCT_ID", help: "only this product"),
             FlagSpec("all", isSwitch: true, help: "follow next_page_token to the last page"),
             FlagSpec("page-size", value: "N", help: "events per page (server default 50, at most 500)"),
             FlagSpec("page-token", value: "TOKEN", help: "continue from a previous page's token")]
        case .health:
            [FlagSpec("service", value: "NAME", default: "", help: "the service to check; empty for the whole server")]
        case .watch:
            [FlagSpec("user", value: "USER", help: "only this user's changes"),
             FlagSpec("after", value: "CURSOR", help: "replay the changes after this cursor first (a change's cursor)"),
             FlagSpec("for", value: "DURATION", help: "stop after this long (default: until Ctrl-C)")]
        case .refresh, .appAccountToken, .owners, .refunds:
            []
        case .reconcile:
            [FlagSpec("since", value: "TIME",
                      help: "ask from this instant (ISO 8601 or Unix ms) instead of the stored watermark")]
        case .webhooks:
            [FlagSpec("from", value: "CURSOR", help: "replay: re-deliver every change after this cursor")]
        case .grant:
            [FlagSpec("for", value: "DURATION",
                      help: "how long the grant lasts from its start (7d, 12h; at most 10 years)"),
             FlagSpec("reason", value: "TEXT", help: "why (required; history shows it with your token's name)"),
             FlagSpec("starts", value: "TIME", help: "start at this instant instead of now: ISO 8601 or Unix ms"),
             FlagSpec("idempotency-key", value: "KEY",
                      help: "the same key for the same user returns the first grant instead of a second one")]
        case .revokeGrant:
            [FlagSpec("reason", value: "TEXT", help: "why (required; history shows it with your token's name)")]
        case .apple:
            [FlagSpec("environment", value: "ENV", default: "production", help: "production or sandbox"),
             FlagSpec("wait", value: "DURATION", default: "30s", help: "how long to wait for the TEST to arrive")]
        case .extend:
            [FlagSpec("days", value: "N", help: "days to add to the renewal date, 1 to 90 (required)"),
             FlagSpec("reason-code", value: "N", default: "1",
                      help: "Apple's extendReasonCode: 0 undeclared, 1 customer satisfaction, 2 other, "
                          + "3 service issue"),
             FlagSpec("request-id", value: "UUID", help: "Apple's requestIdentifier; reuse it to retry safely")]
        case .consumption:
            [FlagSpec("delivery-status", value: "STATUS", default: "DELIVERED",
                      help: "Apple's deliveryStatus: DELIVERED, UNDELIVERED_QUALITY_ISSUE, UNDELIVERED_WRONG_ITEM, "
                          + "UNDELIVERED_SERVER_OUTAGE, UNDELIVERED_OTHER"),
             FlagSpec("percentage", value: "N", default: "0", help: "how much was used, in milli-percent (0-100000)"),
             FlagSpec("consented", isSwitch: true,
                      help: "the customer agreed to share the data (else nothing is sent)"),
             FlagSpec("sample", isSwitch: true, help: "a free sample or trial was provided")]
        case .signOffer:
            []
        case .extendAll:
            [FlagSpec("product", value: "PRODUCT_ID", help: "the auto-renewable subscription to extend (required)"),
             FlagSpec("days", value: "N", help: "days to add, 1 to 90 (starting one)"),
             FlagSpec("reason-code", value: "N", default: "3",
                      help: "Apple's extendReasonCode: 0 undeclared, 1 customer satisfaction, 2 other, "
                          + "3 service issue"),
             FlagSpec("storefronts", value: "CODES", help: "only these storefronts, e.g. USA,CAN (default: all)"),
             FlagSpec("environment", value: "ENV", default: "production", help: "production or sandbox"),
             FlagSpec("status", value: "REQUEST_ID", help: "follow the mass extension started with this request id")]
        }
    }

    static func positionals(for command: Command) -> [String] {
        switch command {
        case .check, .explain, .history, .refresh, .appAccountToken, .refunds: ["USER"]
        case .owners: ["ORIGINAL_TX"]
        case .submit: ["USER", "RECEIPT_FILE|-"]
        case .health, .watch, .reconcile: []
        case .webhooks: ["status|replay"]
        case .grant: ["USER", "ENTITLEMENT"]
        case .revokeGrant: ["USER", "GRANT_ID"]
        case .apple: ["test-notification"]
        case .extendAll: []
        case .extend: ["USER", "ORIGINAL_TX"]
        case .consumption: ["USER", "TX"]
        case .signOffer: ["USER", "PRODUCT", "OFFER_ID"]
        }
    }

    var command: Command?
    var positionals: [String] = []
    var global: ParsedFlags
    var local: ParsedFlags
    var helpRequested = false

    /// Parses `arguments` (without the program name). A bare `--help` is not an error even
    /// when the rest is incomplete: the caller prints the usage that fits.
    static func parse(_ arguments: [String], environment: [String: String]) throws(FlagError) -> CLIArguments {
        var command: Command?
        var positionals: [String] = []
        var globalTokens: [String] = []
        var localTokens: [String] = []
        var help = false
        var onlyPositionals = false
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
                if command == nil {
                    guard let known = Command(rawValue: argument) else {
                        let commands = Command.allCases.map(\.rawValue).joined(separator: ", ")
                        throw FlagError("unknown command '\(argument)' (commands: \(commands))")
                    }
                    command = known
                } else {
                    positionals.append(argument)
                }
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            if argument == "--help" || argument == "-h" { help = true; continue }
            guard argument.hasPrefix("--") else {
                throw FlagError("unknown flag \(argument) (flags start with --; see --help)")
            }
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            let isGlobal = globalFlags.contains { $0.name == name }
            guard let spec = isGlobal ? globalFlags.first(where: { $0.name == name })
                    : command.flatMap({ flags(for: $0).first { $0.name == name } }) else {
                let scope = command.map { "for '\($0.rawValue)'" } ?? "before the command"
                throw FlagError("unknown flag --\(name) \(scope) (see --help)")
            }
            var tokens = [argument]
            if !spec.isSwitch && !argument.contains("=") {
                guard i < arguments.count else {
                    throw FlagError("--\(name) needs a value: --\(name) \(spec.valueName)")
                }
                tokens.append(arguments[i])
                i += 1
            }
            if isGlobal { globalTokens += tokens } else { localTokens += tokens }
        }
        let global = try FlagParser(program: "entitlementctl", summary: "", environmentPrefix: environmentPrefix,
                                    specs: globalFlags).parse(globalTokens, environment: environment)
        let local = try FlagParser(program: "entitlementctl", summary: "", environmentPrefix: environmentPrefix,
                                   specs: command.map(flags(for:)) ?? []).parse(localTokens, environment: [:])
        let parsed = CLIArguments(command: command, positionals: positionals, global: global, local: local,
                                  helpRequested: help)
        if !help, let command {
            var expected = CLIArguments.positionals(for: command)
            // `submit USER --transaction-id ID` names no receipt file.
            if command == .submit, local.string("transaction-id") != nil { expected.removeLast() }
            guard positionals.count == expected.count else {
                let missing = positionals.count < expected.count
                throw FlagError(
                    missing
                        ? "'\(command.rawValue)' needs \(expected.joined(separator: " ")) "
                            + "(see entitlementctl \(command.rawValue) --help)"
                        : "unexpected argument '\(positionals[expected.count])' for '\(command.rawValue)'")
            }
        }
        return parsed
    }
}
