import AppStore
import Entitlements
import JWS

/// Apple's webhook bodies for tests: V1 JSON with the shared secret, V2 JWS signed by a test
/// PKI shaped like Apple's (the ingestor trusts its root, as entitlementd's --apple-root-ca).
struct AppleNotifications: Sendable {
    static let bundleID = "com.example.app"
    static let sharedSecret = "shared-secret"

    let authority: SigningAuthority

    init() throws {
        authority = try SigningAuthority(notBeforeMs: Harness.now - 365 * 86_400_000,
                                         notAfterMs: Harness.now + 365 * 86_400_000, name: "Test Apple")
    }

    /// A V2 body: `{"signedPayload": JWS}` with the transaction and renewal info each signed too.
    func v2(
        _ uuid: String, _ type: String, subtype: String? = nil, transaction: Transaction? = nil,
        renewal: RenewalInfo? = nil, signedAt: Int64 = Harness.now, bundleID: String = Self.bundleID,
        price: (milliUnits: Int64, currency: String)? = nil
    ) throws -> [UInt8] {
        let signer = authority.signer
        let signedTransaction = try transaction.map {
            var payload = JWSTransactionPayload(transaction: $0, bundleID: bundleID, signedDateMs: signedAt)
            payload.price = price?.milliUnits
            payload.currency = price?.currency
            return try signer.sign(payload.jsonBody())
        }
        let signedRenewal = try renewal.map {
            try signer.sign(JWSRenewalInfoPayload(renewalInfo: $0, productID: transaction?.productID,
                                                  environment: .sandbox).jsonBody())
        }
        let payload = NotificationV2Payload(
            notificationUUID: uuid, notificationType: type, subtype: subtype, signedDateMs: signedAt,
            data: .init(bundleID: bundleID, environment: .sandbox, signedTransactionInfo: signedTransaction,
                        signedRenewalInfo: signedRenewal))
        return Self.envelope(try signer.sign(payload.jsonBody()))
    }

    static func envelope(_ signedPayload: String) -> [UInt8] {
        Array("{\"signedPayload\":\"\(signedPayload)\"}".utf8)
    }

    /// A V1 body in the unified_receipt shape.
    static func v1(
        _ type: String, transactions: [Transaction], password: String? = sharedSecret, bundleID: String = bundleID
    ) -> [UInt8] {
        NotificationV1(notificationType: type, password: password, bundleID: bundleID, environment: .sandbox,
                       originalTransactionID: transactions.first?.originalTransactionID,
                       transactions: transactions).jsonBody()
    }

    /// A subscription transaction of `chain`, bought a day before ``Harness/now``.
    static func subscription(_ transactionID: String, chain: String, cancelledAt: Int64? = nil) -> Transaction {
        Transaction(transactionID: transactionID, originalTransactionID: chain, productID: "com.example.monthly",
                    purchaseDateMs: Harness.now - 86_400_000, expiresDateMs: Harness.now + 29 * 86_400_000,
                    cancellationDateMs: cancelledAt, subscriptionGroupIdentifier: "group",
                    inAppOwnershipType: "PURCHASED", environment: .sandbox, declaredProductType: .autoRenewable)
    }
}
