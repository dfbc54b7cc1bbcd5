import AppStore
import Entitlements
import Foundation
import HTTPCore
import JWS

/// The App Store Server API with zero latency, for Benchmarks/server-api.sh: for ANY numeric
/// transaction id, `GET /production/inApps/v2/history/ID` answers one page holding one signed
/// monthly subscription transaction (original = ID) and `GET .../v1/subscriptions/ID` its status
/// with the signed transaction and renewal info. Each answer is signed fresh by a throwaway
/// authority whose root is written to DIR/root.pem (the server's --apple-root-ca); DIR/AuthKey.p8
/// is a key for the server's --app-store-key (the fake does not check the bearer token: it
/// measures the server, the JWT checks are the interop suite's).
final class ServerAPIFake: Sendable {
    static let bundleID = "com.example.app"
    static let productID = "com.example.app.pro.monthly"
    let signer: JWSSigner
    let startMs: Int64

    init(directory: String) throws {
        startMs = Int64(Date().timeIntervalSince1970 * 1000)
        let authority = try SigningAuthority(notBeforeMs: startMs - 86_400_000, notAfterMs: startMs + 86_400_000 * 365,
                                             name: "Benchmark Apple")
        signer = authority.signer
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try authority.rootPEM.write(toFile: directory + "/root.pem", atomically: true, encoding: .utf8)
        try ES256SigningKey.generate().pkcs8PEM().write(toFile: directory + "/AuthKey.p8", atomically: true,
                                                        encoding: .utf8)
    }

    /// The answer to a Server API path, or nil when the path is not one.
    func answer(_ path: String) -> HTTPResponse? {
        let historyPrefix = "/production/inApps/v2/history/"
        let statusPrefix = "/production/inApps/v1/subscriptions/"
        do {
            if path.hasPrefix(historyPrefix) {
                let id = String(path.dropFirst(historyPrefix.count))
                let body = "{\"revision\":\"1\",\"hasMore\":false,\"bundleId\":\"\(Self.bundleID)\","
                    + "\"environment\":\"Production\",\"signedTransactions\":[\"\(try signedTransaction(id))\"]}"
                return json(body)
            }
            if path.hasPrefix(statusPrefix) {
                let id = String(path.dropFirst(statusPrefix.count))
                let renewal = RenewalInfo(originalTransactionID: id, autoRenewStatus: true,
                                          autoRenewProductID: Self.productID, signedDateMs: startMs)
                let signedRenewal = try signer.sign(JWSRenewalInfoPayload(
                    renewalInfo: renewal, productID: Self.productID, environment: .production).jsonBody())
                let body = "{\"environment\":\"Production\",\"bundleId\":\"\(Self.bundleID)\",\"data\":[{"
                    + "\"subscriptionGroupIdentifier\":\"1\",\"lastTransactions\":[{\"status\":1,"
                    + "\"originalTransactionId\":\"\(id)\",\"signedTransactionInfo\":\"\(try signedTransaction(id))\","
                    + "\"signedRenewalInfo\":\"\(signedRenewal)\"}]}]}"
                return json(body)
            }
        } catch {
            return .text(500, "signing failed: \(error)\n")
        }
        return nil
    }

    func signedTransaction(_ id: String) throws -> String {
        let transaction = Transaction(
            transactionID: id, originalTransactionID: id, productID: Self.productID,
            purchaseDateMs: startMs - 86_400_000, expiresDateMs: startMs + 29 * 86_400_000,
            subscriptionGroupIdentifier: "1", environment: .production, declaredProductType: .autoRenewable)
        return try signer.sign(JWSTransactionPayload(transaction: transaction, bundleID: Self.bundleID,
                                                     signedDateMs: startMs).jsonBody())
    }

    func json(_ body: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(body.utf8))
    }
}
