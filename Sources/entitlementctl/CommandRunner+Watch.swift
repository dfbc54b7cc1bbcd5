import EntitlementAPI
import Glibc
import ServiceRuntime
import Synchronization

/// Set by SIGINT/SIGTERM while `watch` runs: the stream is then ended from our side, cleanly.
private let stopRequested = Atomic<Bool>(false)

extension CommandRunner {
    /// `watch`: WatchEntitlementChanges, each change printed (and flushed) as it arrives. Runs
    /// until Ctrl-C, `--for`, or the server ends the stream (its status, exit 3, e.g.
    /// UNAVAILABLE at shutdown: run again with `--after` the last cursor printed).
    func watch() throws -> ExitCode {
        let request = EntitlementV1.WatchEntitlementChangesRequest(
            afterCursor: arguments.local.string("after") ?? "", userID: arguments.local.string("user") ?? "")
        var stopAt: ContinuousClock.Instant?
        if let limit = try arguments.local.duration("for") {
            guard limit > .zero else { throw FlagError("--for must be more than zero") }
            stopAt = .now + limit
        }
        signal(SIGINT) { _ in stopRequested.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in stopRequested.store(true, ordering: .relaxed) }
        try client.serverStreaming(
            path: CommandRunner.service + "WatchEntitlementChanges", request: request, metadata: metadata,
            shouldStop: { stopRequested.load(ordering: .relaxed) || stopAt.map { .now >= $0 } == true },
            onOpen: {
                // Printed once the server has accepted the watch: from here on no change is missed.
                if !json { print(WatchOutput.header) }
                fflush(nil)
            }
        ) { (change: EntitlementV1.EntitlementChange) in
            print(json ? ProtoJSON.change(change).rendered : WatchOutput.line(change))
            fflush(nil)
        }
        return .ok
    }
}

/// One line per change, columns in a fixed order (a stream cannot be aligned after the fact).
enum WatchOutput {
    static let header = "OCCURRED AT | USER | PRODUCT | PREVIOUS -> STATE | ACTIVE | CAUSE | CURSOR"

    static func line(_ c: EntitlementV1.EntitlementChange) -> String {
        let e = c.entitlement ?? EntitlementV1.Entitlement()
        let previous = c.previousState == .unspecified ? "(new)"
            : TableOutput.name(c.previousState, prefix: "ENTITLEMENT_STATE_")
        return [Timestamps.iso8601(milliseconds: c.occurredAtMs), c.userID, e.productID,
                "\(previous) -> \(TableOutput.name(e.state, prefix: "ENTITLEMENT_STATE_"))",
                e.active ? "yes" : "no", c.causeEventID.isEmpty ? "(time)" : c.causeEventID, c.cursor]
            .joined(separator: " | ")
    }
}

extension ProtoJSON {
    /// One `EntitlementChange` in proto3 JSON, every field present, on one line.
    static func change(_ c: EntitlementV1.EntitlementChange) -> JSONValue {
        .object([
            ("cursor", .string(c.cursor)), ("changeId", .string(c.changeID)), ("userId", .string(c.userID)),
            ("entitlement", entitlement(c.entitlement ?? EntitlementV1.Entitlement())),
            ("previousState", .enumeration(c.previousState)), ("occurredAtMs", .int64(c.occurredAtMs)),
            ("causeEventId", .string(c.causeEventID)),
        ])
    }
}
