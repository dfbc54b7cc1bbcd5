import JWS

extension AppStoreSimulator {
    /// How far back the generated certificates' validity starts: notifications are verified at
    /// their signedDate, and data of the simulated past must keep verifying.
    public static let certificateValidityBeforeMs: Int64 = 5 * 365 * SimulatedDuration.day
    /// How far ahead it ends: far enough for any clock a demo or test advances.
    public static let certificateValidityAfterMs: Int64 = 25 * 365 * SimulatedDuration.day

    /// A simulator with its own freshly generated Apple-like PKI; ``rootCertificatePEM`` is the
    /// root to give the client (entitlementd's `--apple-root-ca`).
    public static func withOwnPKI(
        configuration: Simulation.Configuration, notifications: NotificationComposer.Version,
        delivery: WebhookDelivery?, periodScale: Double = 1, apiKey: ServerAPIKey? = nil, apiPageSize: Int = 20,
        wallClock: @escaping @Sendable () -> Int64
    ) throws -> AppStoreSimulator {
        let now = wallClock()
        let authority = try SigningAuthority(notBeforeMs: now - certificateValidityBeforeMs,
                                             notAfterMs: now + certificateValidityAfterMs)
        // Receipts become real App Store receipts: PKCS#7 SignedData by the same PKI.
        var configuration = configuration
        if configuration.receiptSealer == nil {
            configuration.receiptSealer = { content in try? authority.signPKCS7(content) }
        }
        let composer = NotificationComposer(
            version: notifications, bundleID: configuration.bundleID, bundleVersion: configuration.bundleVersion,
            sharedSecret: configuration.sharedSecret, signer: authority.signer)
        return AppStoreSimulator(configuration: configuration, composer: composer, rootPEM: authority.rootPEM,
                                 delivery: delivery, periodScale: periodScale, apiKey: apiKey,
                                 apiPageSize: apiPageSize, wallClock: wallClock)
    }

    /// The PEM of the root every signed payload chains to.
    public var rootCertificatePEM: String { rootPEM }
}
