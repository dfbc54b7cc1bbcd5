import EntitlementDaemon
import EntitlementTesting

// entitlementd plus the test-only entitlementd.testing.v1 service, always on: this executable
// exists for Scripts/test, the interop tests and the benchmarks, and is never built by
// Scripts/run nor shipped by Deploy/. The production `entitlementd` does not link it.
DaemonMain.run(extraServices: [
    ExtraService(name: TestingService.serviceName) { repository, router in
        TestingService(repository: repository).register(into: &router)
    },
])
