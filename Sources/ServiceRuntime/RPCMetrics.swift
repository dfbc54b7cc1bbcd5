import Synchronization

/// Per-method call counts by status and latency histograms, with handles cached so a call
/// costs one dictionary lookup, one atomic add and one histogram update.
public final class RPCMetrics: Sendable {
    private struct Method: Sendable {
        var latency: Histogram
        var byCode: [Int: Counter]
    }

    let registry: MetricsRegistry
    private let methods = Mutex<[String: Method]>([:])

    public init(registry: MetricsRegistry) {
        self.registry = registry
    }

    public func record(method: String, code: Int, codeName: String, seconds: Double) {
        let (histogram, counter) = methods.withLock { methods -> (Histogram, Counter?) in
            if let known = methods[method] { return (known.latency, known.byCode[code]) }
            let latency = registry.histogram("entitlementd_rpc_duration_seconds",
                                             help: "gRPC call latency by method", labels: [("method", method)])
            methods[method] = Method(latency: latency, byCode: [:])
            return (latency, nil)
        }
        histogram.observe(seconds)
        if let counter {
            counter.increment()
            return
        }
        let created = registry.counter("entitlementd_rpc_requests_total", help: "gRPC calls by method and status",
                                       labels: [("method", method), ("code", codeName)])
        methods.withLock { $0[method]?.byCode[code] = created }
        created.increment()
    }
}
