import Synchronization

/// Per-method call counts by status and latency histograms, with handles cached so a call
/// costs one short scan under a lock, one atomic add and one histogram update.
///
/// The cache is a list, not a dictionary: a server has a handful of methods (GRPCHandler
/// reports unknown ones as "unknown") and a method a handful of status codes, and it passes
/// the router's own key string, which compares equal by identity at once. Hashing the
/// ~50-byte method path on every call cost more than the scan.
public final class RPCMetrics: Sendable {
    private struct Method: Sendable {
        let name: String
        let latency: Histogram
        var byCode: [(code: Int, counter: Counter)]
    }

    let registry: MetricsRegistry
    private let methods = Mutex<[Method]>([])

    public init(registry: MetricsRegistry) {
        self.registry = registry
    }

    public func record(method: String, code: Int, codeName: String, seconds: Double) {
        let (histogram, counter) = methods.withLock { methods -> (Histogram, Counter?) in
            for i in methods.indices where methods[i].name == method {
                for j in methods[i].byCode.indices where methods[i].byCode[j].code == code {
                    return (methods[i].latency, methods[i].byCode[j].counter)
                }
                return (methods[i].latency, nil)
            }
            let latency = registry.histogram("entitlementd_rpc_duration_seconds",
                                             help: "gRPC call latency by method", labels: [("method", method)])
            methods.append(Method(name: method, latency: latency, byCode: []))
            return (latency, nil)
        }
        histogram.observe(seconds)
        if let counter {
            counter.increment()
            return
        }
        // The registry hands out one counter per name and labels, so a racing first call of the
        // same method and code gets the same counter; it is listed once.
        let created = registry.counter("entitlementd_rpc_requests_total", help: "gRPC calls by method and status",
                                       labels: [("method", method), ("code", codeName)])
        methods.withLock { methods in
            guard let i = methods.firstIndex(where: { $0.name == method }),
                  !methods[i].byCode.contains(where: { $0.code == code }) else { return }
            methods[i].byCode.append((code: code, counter: created))
        }
        created.increment()
    }
}
