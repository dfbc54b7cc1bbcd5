import Foundation

/// Prints a run's figures: a human summary, then one `RESULT` line (load.sh's keys where they
/// mean the same: rps, p50_us, p99_us).
struct LoadReport {
    let options: LoadOptions
    let picker: UserPicker
    let result: LoadRun.Result

    func print() {
        let latencies = result.latenciesUs
        let seconds = Double(result.windowNs) / 1e9
        let rps = Double(latencies.count) / seconds
        let mean = latencies.isEmpty ? 0 : Double(latencies.reduce(0) { $0 + Int($1) }) / Double(latencies.count)
        let distribution: String
        switch options.distribution {
        case let .single(index): distribution = "single user \(options.userPrefix)\(index)"
        case .uniform: distribution = "uniform over \(options.users) users"
        case let .zipf(exponent): distribution = "zipf s=\(exponent) over \(options.users) users"
        }
        let topShare = picker.share(ofTop: options.cacheCapacity)
        Swift.print("load: \(options.connections)x\(options.streams) to \(options.host):\(options.port), "
                    + "\(distribution), \(options.warmupSeconds) s warm-up + \(options.durationSeconds) s")
        Swift.print(String(format: "load: %.0f req/s, %d ok, %d failed; latency min %.3f ms, mean %.3f ms, "
                           + "p50 %.3f ms, p99 %.3f ms, max %.3f ms", rps, latencies.count, result.failed,
                           ms(percentile(0)), mean / 1000, ms(percentile(50)), ms(percentile(99)),
                           ms(latencies.last.map(Double.init) ?? 0)))
        Swift.print(String(format: "load: driver CPU %.0f%% of a core; the %d hottest users get %.1f%% of the requests "
                           + "(what a perfect cache of that size would hit)",
                           100 * result.cpuSeconds / seconds, options.cacheCapacity, 100 * topShare))
        var server = ""
        if let serverCPU = result.serverCPUSeconds {
            Swift.print(String(format: "load: server CPU %.0f%% of a core, %.0f requests per server CPU-second",
                               100 * serverCPU / seconds, Double(latencies.count) / max(serverCPU, 1e-9)))
            server = String(format: " cpu_server=%.0f per_server_cpu_s=%.0f", 100 * serverCPU / seconds,
                            Double(latencies.count) / max(serverCPU, 1e-9))
        }
        Swift.print(String(format: "RESULT rps=%.0f p50_us=%.0f p99_us=%.0f mean_us=%.0f max_us=%.0f ok=%d failed=%d "
                           + "cpu_driver=%.0f", rps, percentile(50), percentile(99), mean,
                           latencies.last.map(Double.init) ?? 0, latencies.count, result.failed,
                           100 * result.cpuSeconds / seconds) + server)
    }

    /// Nearest-rank percentile in microseconds; 0 = the minimum.
    private func percentile(_ p: Double) -> Double {
        let sorted = result.latenciesUs
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank, 1), sorted.count) - 1])
    }

    private func ms(_ us: Double) -> Double { us / 1000 }
}
