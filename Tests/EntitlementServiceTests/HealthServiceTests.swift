import EntitlementAPI
@testable import EntitlementService
import RPCCore
import Synchronization
import Testing

/// One readiness verdict for `/readyz` and the gRPC health check, recomputed at each ask so a
/// store that comes back makes the process ready again without anyone telling it.
struct HealthServiceTests {
    @Test func followsTheStoreBothWays() throws {
        let storeUp = Atomic<Bool>(true)
        let health = HealthService(storeReady: { storeUp.load(ordering: .relaxed) })
        let ask = GRPCHealthV1.HealthCheckRequest(service: "entitlement.v1.EntitlementService")
        #expect(health.notReady == nil)
        #expect(try health.check(ask).status == .serving)
        storeUp.store(false, ordering: .relaxed)
        #expect(health.notReady == .storeUnavailable)
        #expect(try health.check(ask).status == .notServing)
        storeUp.store(true, ordering: .relaxed)
        #expect(try health.check(ask).status == .serving)
    }

    @Test func drainingWinsOverAStoreThatIsBack() throws {
        let health = HealthService(storeReady: { true })
        health.beginShutdown()
        #expect(health.notReady == .draining)
        #expect(health.notReady?.rawValue == "draining")
        #expect(try health.check(GRPCHealthV1.HealthCheckRequest(service: "")).status == .notServing)
    }

    @Test func unknownServiceIsNotFound() {
        let health = HealthService()
        #expect(throws: RPCError.self) { try health.check(GRPCHealthV1.HealthCheckRequest(service: "nope")) }
    }
}
