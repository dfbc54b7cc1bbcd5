import EntitlementPorts
import EntitlementService
import Foundation
import HTTPCore
import RPCCore
import ServiceRuntime

/// Reconciliation with Apple's notification history: the periodic job and
/// `POST /admin/reconcile`, both over one ``NotificationReconciler`` (so runs never overlap).
extension Daemon {
    /// The reconciler, when the App Store Server API is configured (it is the only source).
    func makeReconciler(
        source: (any NotificationHistorySource)?, ingestor: NotificationIngestor, progress: any ReconciliationProgress
    ) -> NotificationReconciler? {
        guard let source else { return nil }
        let metrics = ReconciliationMetrics(registry: self.metrics, interval: reconcileInterval)
        return NotificationReconciler(
            source: source, ingestor: ingestor, progress: progress, logger: logger, now: WallClock.unixMilliseconds,
            observe: { metrics.record($0) })
    }

    /// Says at startup that no periodic job runs with --reconcile-interval 0 (without the App
    /// Store Server API, ``logMissingCapabilities()`` has said so already).
    func logReconciliationOff(hasReconciler: Bool) {
        if hasReconciler && reconcileInterval == nil {
            logger.info("periodic reconciliation is off (--reconcile-interval 0); entitlementctl reconcile still runs")
        }
    }

    /// `POST /admin/reconcile`, body `{}` or `{"since_ms": N}`: one run now; the report as JSON.
    /// 200 when every environment completed, 503 when one did not (its error says why; the
    /// watermark did not move), 409 while another run is in progress, 412 without a key.
    func reconcileHandler(_ reconciler: NotificationReconciler?) -> HTTPRouter.Handler {
        { request, writer in
            guard let reconciler else {
                writer.respond(Self.adminJSON(412, [
                    "error": "reconciliation needs the App Store Server API: start entitlementd with --app-store-key, "
                        + "--app-store-key-id, --app-store-issuer-id and --bundle-id",
                ]))
                return
            }
            var sinceMs: Int64?
            if !request.body.isEmpty {
                guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
                    let example = "{\"since_ms\": 1764547200000}"
                    writer.respond(Self.adminJSON(400, ["error": "the body must be a JSON object, e.g. \(example)"]))
                    return
                }
                if let value = body["since_ms"] {
                    guard let number = value as? NSNumber, number.int64Value >= 0 else {
                        writer.respond(Self.adminJSON(400, ["error": "since_ms must be Unix milliseconds"]))
                        return
                    }
                    sinceMs = number.int64Value
                }
            }
            Task {
                do {
                    let report = try await reconciler.reconcile(sinceMs: sinceMs)
                    writer.respond(Self.adminJSON(report.succeeded ? 200 : 503, report.jsonObject))
                } catch {
                    writer.respond(Self.adminJSON(409, ["error": "\(error)"]))
                }
            }
        }
    }

    static func adminJSON(_ status: Int, _ object: [String: Any]) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(data) + [0x0A])
    }
}
