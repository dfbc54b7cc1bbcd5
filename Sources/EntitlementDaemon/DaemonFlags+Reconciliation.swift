import ServiceRuntime

/// --reconcile-interval: how often notification history is reconciled.
extension DaemonFlags {
    static let reconciliationSpecs: [FlagSpec] = [
        FlagSpec(
            "reconcile-interval", value: "DURATION", default: "1h",
            help: "ask Apple's notification history for missed notifications this often (needs --app-store-key; "
                + "0 disables; entitlementctl reconcile runs one on demand)"),
    ]

    /// The interval, or nil when 0 turns the periodic job off.
    static func reconcileInterval(_ flags: ParsedFlags) throws(FlagError) -> Duration? {
        guard let interval = try flags.duration("reconcile-interval") else { return nil }
        if interval == .zero { return nil }
        guard interval >= .seconds(1) else {
            throw FlagError("--reconcile-interval must be 0 (off) or at least 1s, e.g. 1h")
        }
        return interval
    }
}
