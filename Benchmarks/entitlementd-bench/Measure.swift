import Foundation
import ServiceRuntime

/// Timing, percentiles and process figures shared by the subcommands.
enum Measure {
    /// Seconds `body` took on the monotonic clock, and its result.
    static func time<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let start = ContinuousClock.now
        let result = try await body()
        return (result, (ContinuousClock.now - start).inSeconds)
    }

    /// Nearest-rank percentile of `sorted` (ascending), `p` in 0...100.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// This process's resident set (`VmRSS`, or the peak `VmHWM`), from /proc (Linux only, as
    /// the service).
    static func rssKiB(_ field: String = "VmRSS") -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? -1
        }
        return -1
    }

    /// The calling thread's read syscalls so far (read, pread, readv: `syscr` in
    /// /proc/thread-self/io); reading the file adds one.
    static func threadReadSyscalls() -> Int {
        guard let io = try? String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8) else { return 0 }
        for line in io.split(separator: "\n") where line.hasPrefix("syscr:") {
            return Int(line.dropFirst("syscr:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    /// The database plus its WAL: what the data set costs on disk.
    static func fileBytes(_ path: String) -> Int {
        [path, path + "-wal"].reduce(0) { total, file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size]) as? Int
            return total + (size ?? 0)
        }
    }

    static func mib(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
    static func ms(_ seconds: Double) -> String { String(format: "%.3f ms", seconds * 1000) }
    /// Cache hits take well under a microsecond; milliseconds would print zeros.
    static func us(_ seconds: Double) -> String { String(format: "%.2f us", seconds * 1e6) }
    static func rate(_ count: Int, _ seconds: Double) -> String {
        String(format: "%.0f", Double(count) / seconds)
    }
}
