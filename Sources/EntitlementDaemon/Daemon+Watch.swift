import EntitlementService
import ServiceRuntime
import StorageCore

/// WatchEntitlementChanges' wiring: the fan-out over the store's change log, its flags and metric.
extension Daemon {
    /// Reads the log on its own thread; a failed read is logged (watchers then reconnect).
    func changeFanOut(_ store: any StoreBackend) -> ChangeFanOut {
        let logger = self.logger
        return ChangeFanOut(log: store, reportFailure: { error in
            logger.error("change log read failed; live watchers were ended", [("error", "\(error)")])
        })
    }
}

extension DaemonFlags {
    /// --stream-keepalive: at least a second (PINGs are tiny, but not a flood).
    static func streamKeepalive(_ flags: ParsedFlags) throws(FlagError) -> Duration {
        guard let interval = try flags.duration("stream-keepalive"), interval >= .seconds(1) else {
            throw FlagError("--stream-keepalive must be at least 1s (e.g. 20s)")
        }
        return interval
    }
}

/// The watch metric: `entitlementd_watchers_connected`, WatchEntitlementChanges calls open now
/// (replaying or live).
enum WatchMetrics {
    static func register(in registry: MetricsRegistry, _ fanOut: ChangeFanOut) {
        registry.registerGauge("entitlementd_watchers_connected", help: "WatchEntitlementChanges streams open now") {
            Double(fanOut.watchersConnected)
        }
    }
}
