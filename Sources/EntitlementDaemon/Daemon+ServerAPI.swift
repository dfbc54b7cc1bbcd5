import AppStoreServerAPI
import EntitlementPorts
import EntitlementService
import ServiceRuntime

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
}
