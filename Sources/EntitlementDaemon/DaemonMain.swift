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
        let commands: [String: ([String]) -> Int32] = [
            "migrate-store": MigrateStoreCommand.run, "backup": BackupCommand.run,
            "verify-store": VerifyStoreCommand.run,
        ]
        if let name = CommandLine.arguments.dropFirst().first, let command = commands[name] {
            exit(command(Array(CommandLine.arguments.dropFirst(2))))
        }
        SignalWatcher.blockHandledSignals()
        let arguments = Array(CommandLine.arguments.dropFirst())
        let environment = ProcessInfo.processInfo.environment
        let flags: ParsedFlags
        do {
            flags = try DaemonFlags.parser.parse(arguments, environment: environment)
        } catch {
            fail(2, "\(error)", arguments, environment)
        }
        if flags.helpRequested {
            print(DaemonFlags.parser.usage)
            exit(0)
        }
        if flags.versionRequested {
            print("entitlementd \(DaemonFlags.version)")
            exit(0)
        }
        do {
            let daemon = try Daemon(flags: flags, extraServices: extraServices, webhookSchedule: webhookSchedule)
            let signals = daemon.signalWatcher()
            Task { exit(await daemon.run()) }
            signals.run()
        } catch let error as FlagError {
            fail(2, "\(error)", arguments, environment)
        } catch {
            fail(1, "cannot start: \(error)", arguments, environment)
        }
    }

    /// Says why startup failed and exits: one JSON line like every other with `--log-format json`
    /// (found leniently, as the flags themselves may be what failed), else plain text for the
    /// person at the terminal.
    private static func fail(_ code: Int32, _ message: String, _ arguments: [String],
                             _ environment: [String: String]) -> Never {
        var format = environment["ENTITLEMENTD_LOG_FORMAT"]
        for (index, argument) in arguments.enumerated() {
            if argument.hasPrefix("--log-format=") {
                format = String(argument.dropFirst("--log-format=".count))
            } else if argument == "--log-format", index + 1 < arguments.count {
                format = arguments[index + 1]
            }
        }
        if format == Logger.Format.json.rawValue {
            Logger(format: .json).error("entitlementd: \(message)")
        } else {
            FileHandle.standardError.write(Data("entitlementd: \(message)\n".utf8))
        }
        exit(code)
    }
}
