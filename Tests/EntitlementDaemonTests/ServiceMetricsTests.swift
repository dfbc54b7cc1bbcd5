@testable import EntitlementDaemon
import EntitlementService
import ServiceRuntime
import Testing

/// The metrics edge: the composition root turns what the service observed (Apple call outcomes)
/// into Prometheus label values; the service itself never spells a label.
struct ServiceMetricsTests {
    private struct Unreadable: Error {}

    @Test(arguments: [
        (ReceiptVerifier.AppleCallOutcome.status(0), "0"),
        (.status(21007), "21007"),
        (.failure(.httpStatus(503)), "http_503"),
        (.failure(.transport(AppleTransportError(reason: "timed out", detail: "NSURLErrorDomain -1001"))),
         "transport_error"),
        (.failure(.unreadableBody(Unreadable())), "unreadable_response"),
    ])
    func eachAppleCallOutcomeHasOneStatusLabel(_ outcome: ReceiptVerifier.AppleCallOutcome, label: String) {
        #expect(ServiceMetrics.statusLabel(outcome) == label)
    }

    @Test func anAppleCallIsCountedUnderItsEnvironmentAndStatus() {
        let metrics = ServiceMetrics(registry: MetricsRegistry())
        metrics.appleCall(environment: .sandbox, outcome: .failure(.httpStatus(502)), seconds: 0.25)
        let text = metrics.registry.render()
        #expect(
            text.contains(#"entitlementd_apple_requests_total{environment="sandbox",status="http_502"} 1"#), "\(text)")
    }
}

extension ReceiptVerifier.AppleCallOutcome: CustomTestStringConvertible {
    public var testDescription: String { "\(self)" }
}
