import EntitlementAPI
import RPCCore
import Synchronization

/// `grpc.health.v1.Health/Check` and `Watch`, and the readiness `/readyz` answers.
///
/// Answers without authentication, because probes carry no credentials. Readiness is one
/// verdict for every probe: NOT_SERVING exactly when `/readyz` answers 503, so a gRPC-aware
/// balancer and haproxy's HTTP check take a replica out together and put it back together.
/// It is computed at each ask (an atomic and the store's own flag), never cached, so it turns
/// back to SERVING by itself as soon as the store is back.
public final class HealthService: Sendable {
    public static let servedNames: Set<String> = ["", "entitlement.v1.EntitlementService"]

    /// Why this process should get no new calls: the short code `/readyz` answers. Codes and
    /// not the underlying error, because the answer reaches whoever can reach the port; the
    /// reason (which may name a database host) goes to the log.
    public enum NotReady: String, Sendable {
        /// The store cannot take writes now (the database does not answer).
        case storeUnavailable = "store_unavailable"
        /// Graceful shutdown has begun.
        case draining
    }

    private let shuttingDown = Atomic<Bool>(false)
    private let storeReady: @Sendable () -> Bool
    private let watchInterval: Duration

    /// `storeReady` must be cheap (it runs on every probe, on a loop thread); `watchInterval`
    /// is how often a `Watch` stream looks for a change.
    public init(storeReady: @escaping @Sendable () -> Bool = { true }, watchInterval: Duration = .milliseconds(250)) {
        self.storeReady = storeReady
        self.watchInterval = watchInterval
    }

    public func beginShutdown() { shuttingDown.store(true, ordering: .relaxed) }

    /// True from ``beginShutdown()`` on.
    public var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }

    /// nil when ready; otherwise why not, draining first (a draining process stays out even
    /// when its store recovers).
    public var notReady: NotReady? {
        if isShuttingDown { return .draining }
        return storeReady() ? nil : .storeUnavailable
    }

    public func register(into router: inout RPCRouter) {
        router.registerInline("/grpc.health.v1.Health/Check", requiresAuthentication: false) {
            (request: GRPCHealthV1.HealthCheckRequest, _: RPCContext) in
            try self.check(request)
        }
        router.registerServerStreaming("/grpc.health.v1.Health/Watch", requiresAuthentication: false) {
            (request: GRPCHealthV1.HealthCheckRequest, _: RPCContext,
             stream: RPCServerStream<GRPCHealthV1.HealthCheckResponse>) in
            try await self.watch(request, stream: stream)
        }
    }

    func check(_ request: GRPCHealthV1.HealthCheckRequest) throws -> GRPCHealthV1.HealthCheckResponse {
        guard HealthService.servedNames.contains(request.service) else {
            throw RPCError(.notFound, "unknown service '\(request.service)'")
        }
        return GRPCHealthV1.HealthCheckResponse(status: notReady == nil ? .serving : .notServing)
    }

    /// Sends the status now and again at each change. An unknown service gets SERVICE_UNKNOWN
    /// (the standard's Watch answer) and the stream stays open, as a service may appear; once
    /// draining, the stream ends after NOT_SERVING, so it does not hold the drain for its grace
    /// period.
    func watch(_ request: GRPCHealthV1.HealthCheckRequest,
               stream: RPCServerStream<GRPCHealthV1.HealthCheckResponse>) async throws {
        let known = HealthService.servedNames.contains(request.service)
        var sent: GRPCHealthV1.HealthCheckResponse.ServingStatus?
        while true {
            let status: GRPCHealthV1.HealthCheckResponse.ServingStatus =
                !known ? .serviceUnknown : notReady == nil ? .serving : .notServing
            if status != sent {
                try await stream.sendWhenReady(GRPCHealthV1.HealthCheckResponse(status: status))
                sent = status
            }
            if known && isShuttingDown { return }
            try await Task.sleep(for: watchInterval)
        }
    }
}
