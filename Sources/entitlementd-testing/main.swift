import EntitlementDaemon
import EntitlementTesting
import Foundation
import Webhooks

// entitlementd plus the test-only entitlementd.testing.v1 service, always on: this executable
// exists for Scripts/test, the interop tests and the benchmarks, and is never built by
// Scripts/run nor shipped by Deploy/. The production `entitlementd` does not link it.
//
// ENTITLEMENTD_TESTING_WEBHOOK_RETRY=INITIAL_MS,MAXIMUM_MS,WINDOW_MS shortens the webhook
// retry schedule (1 s .. 1 h for 3 days in production) so tests see retries and dead letters
// in seconds; only this executable reads it.
DaemonMain.run(
    extraServices: [
        ExtraService(name: TestingService.serviceName) { repository, router in
            TestingService(repository: repository).register(into: &router)
        },
    ],
    webhookSchedule: testingWebhookSchedule() ?? .standard)

func testingWebhookSchedule() -> RetrySchedule? {
    guard let text = ProcessInfo.processInfo.environment["ENTITLEMENTD_TESTING_WEBHOOK_RETRY"] else { return nil }
    let parts = text.split(separator: ",").compactMap { Int64($0) }
    guard parts.count == 3 else {
        let usage = "ENTITLEMENTD_TESTING_WEBHOOK_RETRY must be INITIAL_MS,MAXIMUM_MS,WINDOW_MS\n"
        FileHandle.standardError.write(Data(usage.utf8))
        exit(2)
    }
    return RetrySchedule(initialMs: parts[0], maximumMs: parts[1], windowMs: parts[2])
}
