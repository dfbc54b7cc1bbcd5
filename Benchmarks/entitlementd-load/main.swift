/// entitlementd-load: a CheckEntitlement load generator for realistic reads (issue 14). Like
/// h2load -t 1 (one thread, h2c prior knowledge, C connections x M streams in flight, req/s
/// and latency percentiles), but each request asks about a user chosen per request: always
/// the same one, uniformly at random, or Zipf-like. Requests are encoded before the load, one
/// per user, so the driver spends its time on HTTP/2, not on protobuf.
///
///   entitlementd-load --target 127.0.0.1:50051 [--connections 4] [--streams 32]
///       [--duration 10] [--warmup 2] [--users 1000000] [--distribution single|uniform|zipf]
///       [--zipf-exponent 1.0] [--user-index 0] [--product pro.monthly] [--seed 1]
///       [--cache-capacity 100000] [--server-pid PID] [--rate REQUESTS_PER_SECOND]
///       (--rate: open loop, requests due on a schedule and timed from when they were due,
///       at most --streams in flight per connection; without it every stream stays busy)
///   entitlementd-load --target HOST:PORT --hold 10000 [--hold-interval 5] [--duration 60]
///       (holds that many connections, each calling every --hold-interval seconds, for
///       --warmup + --duration seconds or until SIGTERM / SIGINT; prints how many opened,
///       stayed and were answered)
///
/// A benchmark, not a test: it prints figures, ending with one `RESULT key=value ...` line for
/// scripts; Scripts/test never runs it. Exit 1 when no request succeeded or any failed.
import EntitlementAPI
import Foundation
import HTTP2
import HTTPCore
import ProtobufWire

do {
    let options = try LoadOptions(Array(CommandLine.arguments.dropFirst()))
    let bodies = (0..<options.users).map { index in
        let request = EntitlementV1.CheckEntitlementRequest(userID: "\(options.userPrefix)\(index)",
                                                           productID: options.product)
        let message = request.protobufBytes()
        let length = UInt32(message.count)
        return [0, UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff),
                UInt8(length & 0xff)] + message
    }
    let heads = RequestHeads(authority: "\(options.host):\(options.port)",
                             path: "/entitlement.v1.EntitlementService/CheckEntitlement",
                             bodyLengths: bodies.lazy.map(\.count))
    let picker = UserPicker(users: options.users, distribution: options.distribution, seed: options.seed)
    if options.hold > 0 {
        raiseOpenFilesLimit(to: options.hold + 64)
        HoldRun.stopOnSignals()
        var hold = HoldRun(
            host: options.host, port: options.port, count: options.hold,
            intervalNs: UInt64(options.holdIntervalSeconds * 1e9),
            durationNs: UInt64((options.warmupSeconds + options.durationSeconds) * 1e9),
            heads: heads, bodies: bodies, picker: picker)
        let held = try hold.run()
        print(String(format: "hold: %d connections opened in %.1f s (%d refused), %d lost while held; "
                     + "%d calls answered ok, %d failed (one per connection every %.1f s)", held.opened,
                     held.openSeconds, held.refused, held.lost, held.ok, held.failed, options.holdIntervalSeconds))
        print("RESULT held=\(held.opened) refused=\(held.refused) lost=\(held.lost) ok=\(held.ok) "
              + "failed=\(held.failed)")
        exit(held.refused == 0 && held.lost == 0 && held.failed == 0 ? 0 : 1)
    }
    var run = LoadRun(
        settings: .init(
            host: options.host, port: options.port, connections: options.connections, streams: options.streams,
            warmupNs: UInt64(options.warmupSeconds * 1e9), durationNs: UInt64(options.durationSeconds * 1e9),
            heads: heads, serverPID: options.serverPID, ratePerSecond: options.ratePerSecond),
        bodies: bodies, picker: picker)
    let result = try run.run()
    LoadReport(options: options, picker: picker, result: result).print()
    if result.latenciesUs.isEmpty || result.failed > 0 { exit(1) }
} catch {
    FileHandle.standardError.write(Data("entitlementd-load: \(error)\n".utf8))
    exit(1)
}

/// The soft open-files limit up to `count` (within the hard limit): one descriptor per connection.
func raiseOpenFilesLimit(to count: Int) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
    limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}
