import Console
import ServiceRuntime

/// The console's flags: how long a sign-in lasts and whether a proxy's headers are believed.
extension DaemonFlags {
    static let consoleSpecs: [FlagSpec] = [
        FlagSpec(
            "console-session-lifetime", value: "DURATION", default: "8h",
            help: "how long a console sign-in lasts (on --admin-listen; between 1m and 7d)"),
        FlagSpec(
            "console-trust-forwarded-headers", isSwitch: true,
            help: "a TLS proxy in front of --admin-listen sets X-Forwarded-Proto/-For: mark the console's cookie "
                + "Secure behind https and count failed sign-ins per client (off: both headers are ignored)"),
    ]

    static func consoleConfiguration(_ flags: ParsedFlags) throws(FlagError) -> Console.Configuration {
        let lifetime = try flags.duration("console-session-lifetime")!
        guard lifetime >= .seconds(60), lifetime <= .seconds(7 * 86_400) else {
            throw FlagError("--console-session-lifetime must be between 1m and 7d, e.g. 8h")
        }
        return Console.Configuration(trustForwardedHeaders: try flags.bool("console-trust-forwarded-headers"),
                                     sessionLifetimeMs: lifetime.inMilliseconds)
    }
}
