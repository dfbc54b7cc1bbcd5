import AppStoreServerAPI
import EntitlementPorts
import EntitlementService
import ServiceRuntime
import StorageCore

extension Daemon {
    /// The App Store Server API client, over the same HTTP client as verifyReceipt; nil
    /// without a key. Build it once per process (it holds the token cache and the rate bucket)
    /// and share it: SubmitReceipt, RefreshEntitlements and reconciliation all use this one.
    /// Its requests are counted by ``ServerAPIMetrics``.
    func serverAPIClient(transport: CurlAppleClient) -> AppStoreServerClient? {
        guard let configuration = serverAPIConfiguration else { return nil }
        let metrics = ServerAPIMetrics(registry: self.metrics)
        logger.info("App Store Server API in use", [
            ("key_id", configuration.credentials.keyID), ("bundle_id", configuration.credentials.bundleID),
            ("receipt_mode", "\(receiptRoute)"), ("rate", String(configuration.requestsPerSecond)),
        ])
        return AppStoreServerClient(
            configuration: configuration, transport: transport, now: WallClock.unixMilliseconds,
            observe: { endpoint, environment, status, seconds in
                metrics.request(endpoint: endpoint, environment: environment, status: status, seconds: seconds)
            })
    }

    /// What the service asks the Server API for (transaction_id, receipt_data in server-api or
    /// auto mode, RefreshEntitlements), verified with the notifications' verifier and bundle.
    func serverAPIPurchases(client: AppStoreServerClient?) -> ServerAPIPurchases? {
        guard let client else { return nil }
        return ServerAPIPurchases(client: client, verifier: jwsVerifier,
                                  bundleID: client.configuration.credentials.bundleID)
    }

    /// Answers Apple's consumption requests from the store's queue, as a singleton duty; nil
    /// without a key (RecordConsumption then answers FAILED_PRECONDITION, and requests are
    /// only recorded). Its outcomes are counted in `entitlementd_consumption_answers_total`.
    func consumptionAnswerer(store: any StoreBackend, apiClient: AppStoreServerClient?) -> ConsumptionAnswerer? {
        guard let apiClient else { return nil }
        let registry = metrics
        let count = { @Sendable (outcome: String, by: Int) in
            registry.increment("entitlementd_consumption_answers_total",
                               help: "Answers to Apple's consumption requests by outcome (sent, rejected, retry, "
                                   + "expired)",
                               labels: [("outcome", outcome)], by: by)
        }
        // Every outcome from 0, so an alert's ratio has its series before the first request.
        for outcome in ["sent", "rejected", "retry", "expired"] { count(outcome, 0) }
        return ConsumptionAnswerer(
            answers: store, client: apiClient, refundPreference: refundPreference, now: WallClock.unixMilliseconds,
            logger: logger, observe: { outcome in count(outcome, 1) })
    }
}
