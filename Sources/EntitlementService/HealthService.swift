import EntitlementAPI
import RPCCore
import Synchronization

/// `grpc.health.v1.Health/Check`, as load balancers and orchestrators call it.
///
/// Answers inline (no I/O) and without authentication, because probes carry no credentials.
/// Reports NOT_SERVING once shutdown has begun so balancers drain this replica first.
public final class HealthService: Sendable {
    public static let servedNames: Set<String> = ["", "entitlement.v1.EntitlementService"]
    private let shuttingDown = Atomic<Bool>(false)

    public init() {}

    public func beginShutdown() { shuttingDown.store(true, ordering: .relaxed) }

    /// True from ``beginShutdown()`` on: what `/healthz` also answers (503) during the drain.
    public var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }

    public func register(into router: inout RPCRouter) {
        router.registerInline("/grpc.health.v1.Health/Check", requiresAuthentication: false) {
            (request: GRPCHealthV1.HealthCheckRequest, _: RPCContext) in
            try self.check(request)
        }
    }

    func check(_ request: GRPCHealthV1.HealthCheckRequest) throws -> GRPCHealthV1.HealthCheckResponse {
        guard HealthService.servedNames.contains(request.service) else {
            throw RPCError(.notFound, "unknown service '\(request.service)'")
        }
        return GRPCHealthV1.HealthCheckResponse(
            status: isShuttingDown ? .notServing : .serving)
    }
}
