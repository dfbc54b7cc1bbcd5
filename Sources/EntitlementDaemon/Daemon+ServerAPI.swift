import AppStoreServerAPI
import EntitlementPorts
import EntitlementService
import ServiceRuntime

extension Daemon {
    /// The App Store Server API as the service uses it (transaction_id, receipt_data in
    /// server-api/auto mode, RefreshEntitlements), over the same URLSession client as
    /// verifyReceipt; nil without a key. Its requests are counted by ``ServerAPIMetrics``.
    func serverAPIPurchases(transport: URLSessionAppleClient) -> ServerAPIPurchases? {
        guard let configuration = serverAPIConfiguration else { return nil }
        let metrics = ServerAPIMetrics(registry: self.metrics)
        let client = AppStoreServerClient(
            configuration: configuration, transport: transport, now: WallClock.unixMilliseconds,
            observe: { endpoint, environment, status, seconds in
                metrics.request(endpoint: endpoint, environment: environment, status: status, seconds: seconds)
            })
        logger.info("App Store Server API in use", [
            ("key_id", configuration.credentials.keyID), ("bundle_id", configuration.credentials.bundleID),
            ("receipt_mode", "\(receiptRoute)"), ("rate", String(configuration.requestsPerSecond)),
        ])
        return ServerAPIPurchases(client: client, verifier: jwsVerifier, bundleID: configuration.credentials.bundleID)
    }
}
