import Entitlements

extension NotificationV2Payload.Data {
    /// Public for encoders; the labels start with the bundle because the synthesized (internal)
    /// initializer already takes this order's other spelling.
    public init(
        bundleID: String?, environment: Environment, appAppleID: String? = nil,
        bundleVersion: String? = nil, signedTransactionInfo: String? = nil,
        signedRenewalInfo: String? = nil, status: Int? = nil, consumptionRequestReason: String? = nil
    ) {
        self.environment = environment
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.bundleVersion = bundleVersion
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.status = status
        self.consumptionRequestReason = consumptionRequestReason
    }
}

extension NotificationV2Payload {
    /// Public for encoders; the UUID leads because the synthesized (internal) initializer
    /// already takes the declaration order.
    public init(
        notificationUUID: String, notificationType: String, subtype: String? = nil,
        signedDateMs: Int64, data: Data? = nil, version: String? = "2.0", hasSummary: Bool = false
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.version = version
        self.signedDateMs = signedDateMs
        self.data = data
        self.hasSummary = hasSummary
    }

    /// The JSON a V2 `signedPayload` signs, what ``parse(_:)`` reads back. The nested JWS
    /// strings are written as given: signing them is the JWS module's business.
    ///
    /// A summary notification is written with an empty `summary` object: the shared model
    /// keeps only that one was present.
    public func jsonBody() -> [UInt8] {
        var root = AppleJSONWriter()
        root.string("notificationType", notificationType)
        root.string("subtype", subtype)
        root.string("notificationUUID", notificationUUID)
        if let data {
            var object = AppleJSONWriter()
            object.string("appAppleId", data.appAppleID)
            object.string("bundleId", data.bundleID)
            object.string("bundleVersion", data.bundleVersion)
            object.string("environment", data.environment.appleName)
            object.string("signedTransactionInfo", data.signedTransactionInfo)
            object.string("signedRenewalInfo", data.signedRenewalInfo)
            object.number("status", data.status)
            object.string("consumptionRequestReason", data.consumptionRequestReason)
            root.object("data", object)
        }
        if hasSummary {
            root.object("summary", AppleJSONWriter())
        }
        root.string("version", version)
        root.number("signedDate", signedDateMs)
        return root.bytes
    }
}
