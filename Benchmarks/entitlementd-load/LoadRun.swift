import CLinux
import Foundation
import Glibc
import HTTP2

/// The load itself: `connections` h2c connections, each keeping `streams` requests in flight,
/// one thread driving them all with `poll`, as h2load -t 1 does; or, with a rate, requests
/// arriving on a schedule (``RateSchedule``), each connection carrying at most `streams`.
///
/// A request is counted (and its latency kept) when it finishes inside the measured window,
/// which starts after the warm-up; latency runs from submitting the request to its stream's
/// close, h2load's definition (with a rate, from when the request was due).
struct LoadRun {
    struct Settings {
        var host: String
        var port: UInt16
        var connections: Int
        var streams: Int
        var warmupNs: UInt64
        var durationNs: UInt64
        /// The request heads, laid out once.
        var heads: RequestHeads
        var serverPID: Int32?
        /// Requests per second on a schedule (open loop); 0 keeps every stream busy (closed loop).
        var ratePerSecond = 0.0
    }

    struct Result {
        /// Microseconds, one per request finished in the window, ascending.
        var latenciesUs: [UInt32]
        var failed: Int
        var windowNs: UInt64
        /// This process's user + system CPU during the window, in seconds.
        var cpuSeconds: Double
        /// The server's CPU during the window (all its threads), when its pid was given.
        var serverCPUSeconds: Double?
    }

    let settings: Settings
    /// Pre-encoded gRPC bodies, one per user index.
    let bodies: [[UInt8]]
    var picker: UserPicker

    mutating func run() throws -> Result {
        var connections: [LoadConnection] = []
        for _ in 0..<settings.connections {
            connections.append(try LoadConnection(host: settings.host, port: settings.port))
        }
        defer { for connection in connections { connection.shutdown() } }
        let begin = Self.nowNs()
        let windowStart = begin + settings.warmupNs
        let windowEnd = windowStart + settings.durationNs
        var latencies: [UInt32] = []
        latencies.reserveCapacity(1 << 20)
        var failed = 0
        var cpuAtStart: Double?
        var serverCPUAtStart: Double?
        var schedule = settings.ratePerSecond > 0 ? RateSchedule(start: begin, perSecond: settings.ratePerSecond) : nil
        if schedule == nil {
            for connection in connections { try topUp(connection, now: begin) }
        }
        var descriptors = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let now = Self.nowNs()
            if cpuAtStart == nil && now >= windowStart {
                cpuAtStart = Self.cpuSeconds()
                serverCPUAtStart = settings.serverPID.flatMap(Self.cpuSeconds(pid:))
            }
            if now >= windowEnd { break }
            if schedule != nil { try feed(&schedule!, connections, now: now) }
            for index in descriptors.indices {
                descriptors[index].events = Int16(POLLIN) | (connections[index].wantsWrite ? Int16(POLLOUT) : 0)
            }
            var timeout = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            if let next = schedule?.nextDue {
                timeout.tv_nsec = Int(min(10_000_000, next - min(next, Self.nowNs())))
            }
            let ready = ppoll(&descriptors, nfds_t(descriptors.count), &timeout, nil)
            if ready < 0 && errno != EINTR { throw LoadError("poll: \(String(cString: strerror(errno)))") }
            guard ready > 0 else { continue }
            for index in descriptors.indices where descriptors[index].revents != 0 {
                let connection = connections[index]
                try connection.readAvailable(buffer: buffer) { startedAt, ok in
                    let finishedAt = Self.nowNs()
                    guard finishedAt >= windowStart && finishedAt < windowEnd else { return }
                    if ok {
                        latencies.append(UInt32(clamping: (finishedAt - startedAt) / 1000))
                    } else {
                        failed += 1
                    }
                }
                if schedule == nil { try topUp(connection, now: Self.nowNs()) }
            }
        }
        let cpu = Self.cpuSeconds() - (cpuAtStart ?? Self.cpuSeconds())
        var serverCPU: Double?
        if let before = serverCPUAtStart, let after = settings.serverPID.flatMap(Self.cpuSeconds(pid:)) {
            serverCPU = after - before
        }
        latencies.sort()
        return Result(latenciesUs: latencies, failed: failed, windowNs: settings.durationNs, cpuSeconds: cpu,
                      serverCPUSeconds: serverCPU)
    }

    /// Refills the connection to `streams` requests in flight and writes them.
    private mutating func topUp(_ connection: LoadConnection, now: UInt64) throws {
        while connection.inFlight < settings.streams {
            let body = bodies[picker.next()]
            try connection.submit(body: body, head: settings.heads.head(forBodyLength: body.count), now: now)
        }
        try connection.flush()
    }

    /// Sends the requests due by `now` on connections with a stream free, round the connections.
    private mutating func feed(_ schedule: inout RateSchedule, _ connections: [LoadConnection], now: UInt64) throws {
        schedule.collect(now: now)
        guard schedule.waiting > 0 else { return }
        var index = schedule.nextConnection
        var full = 0
        while schedule.waiting > 0 && full < connections.count {
            let connection = connections[index]
            defer { index = (index + 1) % connections.count }
            guard connection.inFlight < settings.streams, let dueAt = schedule.take() else {
                full += 1
                continue
            }
            full = 0
            let body = bodies[picker.next()]
            try connection.submit(body: body, head: settings.heads.head(forBodyLength: body.count), now: dueAt)
        }
        schedule.nextConnection = index
        // Submitting only queues the frames: flushing writes them (a connection with nothing
        // queued makes no system call).
        for connection in connections { try connection.flush() }
    }

    static func nowNs() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// utime + stime of process `pid` from /proc/PID/stat (fields 14 and 15, after the name).
    static func cpuSeconds(pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let nameEnd = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
