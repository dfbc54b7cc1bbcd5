import Glibc
import HTTPCore

/// Holds many mostly idle h2c connections open, each making one CheckEntitlement call every
/// `interval` (staggered so the calls spread evenly), for the 10,000-connection benchmark
/// (issue 14 goal 5). Their latency is not the point and is not measured: the loop wakes every
/// 10 ms, so one `poll` over thousands of descriptors costs little of the driver's core. What
/// it reports is how many connections opened, stayed open, and got good answers.
struct HoldRun {
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
    let path: String
    let headers: HTTPHeaders
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
        var descriptors = connections.map { pollfd(fd: $0?.fd ?? -1, events: Int16(POLLIN), revents: 0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        let start = LoadRun.nowNs()
        var issued: UInt64 = 0
        while true {
            let now = LoadRun.nowNs()
            if now - start >= durationNs { break }
            // Call number k goes to connection k % count at start + k * interval / count.
            while start + issued * intervalNs / UInt64(count) <= now {
                let index = Int(issued % UInt64(count))
                issued += 1
                guard let connection = connections[index], connection.inFlight == 0 else { continue }
                do {
                    try connection.submit(body: bodies[picker.next()], path: path, headers: headers, now: now)
                    try connection.flush()
                } catch {
                    drop(index, &connections, &descriptors, &result)
                }
            }
            if poll(&descriptors, nfds_t(descriptors.count), 0) > 0 {
                for index in descriptors.indices where descriptors[index].revents != 0 {
                    guard let connection = connections[index] else { continue }
                    do {
                        try connection.readAvailable(buffer: buffer) { _, ok in
                            if ok { result.ok += 1 } else { result.failed += 1 }
                        }
                        try connection.flush()  // SETTINGS and PING acknowledgements
                    } catch {
                        drop(index, &connections, &descriptors, &result)
                    }
                }
            }
            usleep(10_000)
        }
        return result
    }

    private func drop(_ index: Int, _ connections: inout [LoadConnection?], _ descriptors: inout [pollfd],
                      _ result: inout Result) {
        connections[index]?.shutdown()
        connections[index] = nil
        descriptors[index].fd = -1
        result.lost += 1
    }
}
