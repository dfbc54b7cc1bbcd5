import ServiceRuntime

/// What an operator should read at startup before a caller finds it out: a variable that looks
/// like configuration but configures nothing, and each capability the flags left off.
extension Daemon {
    /// One warning per `ENTITLEMENTD_*` variable that names no flag, with the flag it most
    /// likely meant; the service starts anyway (other tools may share the prefix).
    func logUnknownEnvironmentVariables(_ environment: [String: String]) {
        let unknown = DaemonFlags.parser.unknownEnvironmentVariables(
            environment, otherVariables: DaemonFlags.otherEnvironmentVariables)
        for variable in unknown {
            logger.warning("unknown environment variable, ignored: it sets no flag (a typo?)",
                           [("variable", variable.name), ("did_you_mean", variable.nearest)])
        }
    }

    /// One warning per capability left off, saying what callers will see.
    func logMissingCapabilities() {
        if (verifierConfiguration.sharedSecret ?? "").isEmpty {
            logger.warning("no --apple-shared-secret: V1 notifications will be refused with 401, and verifyReceipt "
                           + "is called without the app's shared secret")
        }
        if serverAPIConfiguration == nil {
            logger.warning("no App Store Server API key (--app-store-key): no reconciliation with Apple's "
                           + "notification history; transaction_id and RefreshEntitlements are unavailable")
        }
    }
}
