import EntitlementAPI
import RPCCore

/// `entitlementd.testing.v1.Testing`: registered only with --enable-testing-service, so the
/// interop tests can reach paths no production caller should (slow calls, direct seeding).
public struct TestingService: Sendable {
    public init() {}

    public func register(into router: inout RPCRouter) {
        router.register("/entitlementd.testing.v1.Testing/Sleep") {
            (request: TestingV1.SleepRequest, _: RPCContext) async throws -> TestingV1.SleepResponse in
            try await Task.sleep(for: .milliseconds(Int64(max(0, request.milliseconds))))
            return TestingV1.SleepResponse()
        }
    }
}
