import CLinux
import Glibc
import HTTP2
import Synchronization

/// Holds many mostly idle h2c connections open, each making one CheckEntitlement call every
/// `interval` (staggered so the calls spread evenly), for the 10,000-connection benchmark
/// (issue 14 goal 5). Their latency is not the point and is not measured; what it reports is
/// how many connections opened, stayed open, and got good answers.
///
/// It shares a core with the active client whose latency is measured, so its own cost must
/// follow its calls, not the connections it holds: it waits in epoll until the next call is
/// due (about every millisecond) or an answer arrives. It used to `poll` all 10,000 descriptors
/// every 10 ms, a few milliseconds of kernel time each on the active client's core, and sent
/// each 10 ms of calls in one burst: both showed up in the client's p99 as if the server had
/// caused them.
struct HoldRun {
    /// Set by SIGTERM or SIGINT: the run ends at its next wake (within 10 ms) and reports as if
    /// its time were up, so a script holds the connections exactly as long as its measurements
    /// take (a fixed duration ran out mid-measurement when the script waited for a quiet machine).
    static let stopRequested = Atomic<Bool>(false)

    static func stopOnSignals() {
        signal(SIGTERM) { _ in HoldRun.stopRequested.store(true, ordering: .relaxed) }
        signal(SIGINT) { _ in HoldRun.stopRequested.store(true, ordering: .relaxed) }
    }

    struct Result {
        var opened = 0
        var refused = 0
        /// Connections the server closed (or broke) while held.
        var lost = 0
        var ok = 0
        var failed = 0
        var openSeconds = 0.0
    }

    let host: String
    let port: UInt16
    let count: Int
    let intervalNs: UInt64
    let durationNs: UInt64
    let heads: RequestHeads
    let bodies: [[UInt8]]
    var picker: UserPicker

    mutating func run() throws -> Result {
        var result = Result()
        var connections: [LoadConnection?] = []
        connections.reserveCapacity(count)
        let openStart = LoadRun.nowNs()
        for _ in 0..<count {
            do {
                let connection = try LoadConnection(host: host, port: port)
                try connection.flush()  // the preface and SETTINGS, so the server sees a live client
                connections.append(connection)
                result.opened += 1
            } catch {
                result.refused += 1
                connections.append(nil)
            }
        }
        result.openSeconds = Double(LoadRun.nowNs() - openStart) / 1e9
        defer { for connection in connections { connection?.shutdown() } }
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw LoadError("epoll_create1: \(String(cString: strerror(errno)))") }
        defer { close(epollFD) }
        for (index, connection) in connections.enumerated() {
            guard let connection else { continue }
            var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: UInt64(index)))
            guard epoll_ctl(epollFD, EPOLL_CTL_ADD, connection.fd, &event) == 0 else {
                throw LoadError("epoll_ctl: \(String(cString: strerror(errno)))")
            }
        }
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        let start = LoadRun.nowNs()
        var issued: UInt64 = 0
        func callTime(_ k: UInt64) -> UInt64 { start + k * intervalNs / UInt64(count) }
        while true {
            let now = LoadRun.nowNs()
            if now - start >= durationNs || Self.stopRequested.load(ordering: .relaxed) { break }
            // Call number k goes to connection k % count at start + k * interval / count.
            while callTime(issued) <= now {
                let index = Int(issued % UInt64(count))
                issued += 1
                guard let connection = connections[index], connection.inFlight == 0 else { continue }
                do {
                    let body = bodies[picker.next()]
                    try connection.submit(body: body, head: heads.head(forBodyLength: body.count), now: now)
                    try connection.flush()
                } catch {
                    drop(index, &connections, epollFD, &result)
                }
            }
            let untilNextCall = (callTime(issued) - min(callTime(issued), LoadRun.nowNs()) + 999_999) / 1_000_000
            let timeoutMs = Int32(min(max(untilNextCall, 1), 10))
            let ready = events.withUnsafeMutableBufferPointer {
                epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeoutMs)
            }
            for event in events.prefix(max(0, Int(ready))) {
                let index = Int(event.data.u64)
                guard let connection = connections[index] else { continue }
                do {
                    try connection.readAvailable(buffer: buffer) { _, ok in
                        if ok { result.ok += 1 } else { result.failed += 1 }
                    }
                    try connection.flush()  // SETTINGS and PING acknowledgements
                } catch {
                    drop(index, &connections, epollFD, &result)
                }
            }
        }
        return result
    }

    private func drop(_ index: Int, _ connections: inout [LoadConnection?], _ epollFD: Int32,
                      _ result: inout Result) {
        if let connection = connections[index] {
            epoll_ctl(epollFD, EPOLL_CTL_DEL, connection.fd, nil)
            connection.shutdown()
        }
        connections[index] = nil
        result.lost += 1
    }
}
