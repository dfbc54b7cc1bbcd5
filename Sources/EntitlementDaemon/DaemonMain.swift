import Foundation
import ServiceRuntime
import Webhooks

/// The process entry point shared by `entitlementd` and the test-only `entitlementd-testing`:
/// parse flags, build every component, serve until SIGTERM, exit.
///
/// It lives in a library so the test executable can add services (``ExtraService``) that the
/// production binary never links: `entitlementd` passes none.
public enum DaemonMain {
    ///
    /// Synchronous on purpose, and called first thing in `main.swift`: it blocks the handled
    /// signals before any other thread exists, so every thread inherits the mask and
    /// SIGTERM/SIGINT/SIGHUP wait for the signal watcher instead of killing a half-started
    /// process. The daemon runs as a task; the main thread becomes the signal watcher (not
    /// `dispatchMain()`, which unblocks every signal on it) until the daemon's task exits.
    /// `webhookSchedule` replaces the production retry schedule; only `entitlementd-testing`
    /// passes one (tests cannot wait an hour for a retry), so no flag can weaken production's.
    public static func run(extraServices: [ExtraService] = [], webhookSchedule: RetrySchedule = .standard) -> Never {
        // A one-shot command, not the service: no signal handling, no listeners.
        if CommandLine.arguments.dropFirst().first == "migrate-store" {
            exit(MigrateStoreCommand.run(Array(CommandLine.arguments.dropFirst(2))))
        }
        SignalWatcher.blockHandledSignals()
        let flags: ParsedFlags
        do {
            flags = try DaemonFlags.parser.parse(Array(CommandLine.arguments.dropFirst()),
                                                 environment: ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("entitlementd: \(error)\n".utf8))
            exit(2)
        }
        if flags.helpRequested {
            print(DaemonFlags.parser.usage)
            exit(0)
        }
        do {
            let daemon = try Daemon(flags: flags, extraServices: extraServices, webhookSchedule: webhookSchedule)
            let signals = daemon.signalWatcher()
            Task { exit(await daemon.run()) }
            signals.run()
        } catch let error as FlagError {
            FileHandle.standardError.write(Data("entitlementd: \(error)\n".utf8))
            exit(2)
        } catch {
            FileHandle.standardError.write(Data("entitlementd: cannot start: \(error)\n".utf8))
            exit(1)
        }
    }
}
