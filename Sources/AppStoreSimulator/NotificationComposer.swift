import AppStore
import Entitlements
import JWS

/// Turns a ``SimulatedEvent`` into the body Apple would POST to the webhook.
///
/// V1 is the unsigned JSON with the shared secret as `password` and a `unified_receipt`; V2 is
/// `{"signedPayload": JWS}` whose payload, transaction and renewal info are each signed by the
/// simulator's own PKI at the event's simulated time.
public struct NotificationComposer: Sendable {
    public enum Version: String, Sendable { case v1, v2 }

    public let version: Version
    public let bundleID: String
    public let bundleVersion: String
    public let sharedSecret: String?
    public let signer: JWSSigner

    public init(version: Version, bundleID: String, bundleVersion: String, sharedSecret: String?, signer: JWSSigner) {
        self.version = version
        self.bundleID = bundleID
        self.bundleVersion = bundleVersion
        self.sharedSecret = sharedSecret
        self.signer = signer
    }

    /// The webhook body, or nil when this version has no notification for the event.
    public func body(for event: SimulatedEvent) throws(JWSError) -> [UInt8]? {
        switch version {
        case .v1: return v1Body(event)
        case .v2: return Array("{\"signedPayload\":\"\(try signedPayload(event))\"}".utf8)
        }
    }

    /// The V2 `signedPayload` JWS for `event`.
    public func signedPayload(_ event: SimulatedEvent) throws(JWSError) -> String {
        let data = NotificationV2Payload.Data(
            bundleID: bundleID, environment: event.environment, bundleVersion: bundleVersion,
            signedTransactionInfo: try signedTransaction(event.transaction, at: event.signedDateMs),
            signedRenewalInfo: try event.renewalInfo.map { (info) throws(JWSError) in
                try signedRenewalInfo(
                    info, productID: event.currentProductID, appAccountToken: event.transaction.appAccountToken,
                    environment: event.environment)
            },
            status: event.status, consumptionRequestReason: event.consumptionRequestReason)
        let payload = NotificationV2Payload(
            notificationUUID: event.notificationUUID, notificationType: event.notificationType,
            subtype: event.subtype, signedDateMs: event.signedDateMs, data: data)
        return try signer.sign(payload.jsonBody())
    }

    /// A StoreKit 2 signed transaction, as SubmitReceipt's `signed_transaction` takes it.
    public func signedTransaction(_ transaction: Transaction, at signedDateMs: Int64) throws(JWSError) -> String {
        try signer.sign(
            JWSTransactionPayload(transaction: transaction, bundleID: bundleID, signedDateMs: signedDateMs).jsonBody())
    }

    /// A StoreKit 2 signed renewal info. `appAccountToken` is the chain's: the simulator keeps it on
    /// every transaction of the chain, so the caller passes the one of the transaction at hand.
    public func signedRenewalInfo(
        _ info: RenewalInfo, productID: String?, appAccountToken: String? = nil, environment: Environment
    ) throws(JWSError) -> String {
        try signer.sign(
            JWSRenewalInfoPayload(renewalInfo: info, productID: productID, environment: environment,
                                  appAccountToken: appAccountToken).jsonBody())
    }

    private func v1Body(_ event: SimulatedEvent) -> [UInt8]? {
        guard let type = event.v1NotificationType else { return nil }
        let notification = NotificationV1(
            notificationType: type, password: sharedSecret, bundleID: bundleID, bundleVersion: bundleVersion,
            environment: event.environment, originalTransactionID: event.transaction.originalTransactionID,
            autoRenewStatus: event.renewalInfo?.autoRenewStatus,
            autoRenewProductID: event.renewalInfo?.autoRenewProductID,
            cancellationDateMs: event.cancellationDateMs,
            transactions: event.receiptTransactions, renewalInfos: event.receiptRenewalInfos,
            latestReceipt: event.latestReceipt, unifiedReceiptStatus: 0)
        return notification.jsonBody()
    }
}
