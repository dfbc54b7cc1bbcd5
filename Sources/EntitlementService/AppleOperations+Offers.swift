import AppStore
import AppStoreServerAPI
import EntitlementAPI
import EntitlementPorts
import Entitlements
import Foundation
import JWS
import RPCCore

extension AppleOperations {
    /// SignPromotionalOffer: Apple's promotional offer signature (``PromotionalOfferPayload``)
    /// for the user, made with the In-App Purchase key over the user's app account token and a
    /// fresh nonce, so StoreKit applies the offer only to that account's purchase.
    ///
    /// The product must be an auto-renewable subscription in the catalog: StoreKit accepts
    /// promotional offers only for those, and a typo would otherwise fail on the device, where
    /// nobody sees why. The token is the one GetAppAccountToken answers (issued on first use).
    public func signPromotionalOffer(
        _ request: EntitlementV1.SignPromotionalOfferRequest
    ) async throws -> EntitlementV1.SignPromotionalOfferResponse {
        guard let credentials = serverAPI?.client.configuration.credentials else {
            throw RPCError(.failedPrecondition, "promotional offers are signed with the In-App Purchase key: "
                           + ReceiptSubmission.serverAPIRequired)
        }
        guard !request.userID.isEmpty else { throw RPCError(.invalidArgument, "user_id is required") }
        guard let entry = catalog.entry(for: request.productID), entry.productType == .autoRenewable else {
            throw RPCError(.invalidArgument, "product_id '\(request.productID)' is not an auto-renewable "
                           + "subscription in the catalog (--catalog): StoreKit applies promotional offers "
                           + "only to those")
        }
        guard !request.offerID.isEmpty else {
            throw RPCError(.invalidArgument,
                           "offer_id is required: the promotional offer's identifier in App Store Connect")
        }
        guard let accountTokens else {
            throw RPCError(.unimplemented, "this server's store issues no app account tokens")
        }
        let token = try await withStoreErrors { try await accountTokens.appAccountToken(userID: request.userID) }
        let nonce = AppAccountToken.random()
        let timestampMs = now()
        let text = PromotionalOfferPayload.text(
            bundleID: credentials.bundleID, keyID: credentials.keyID, productID: request.productID,
            offerID: request.offerID, appAccountToken: token, nonce: nonce, timestampMs: timestampMs)
        let signature: [UInt8]
        do {
            signature = try credentials.key.signDER(Array(text.utf8))
        } catch {
            throw RPCError(.internal, "the offer could not be signed; see the server log", cause: error)
        }
        var response = EntitlementV1.SignPromotionalOfferResponse()
        response.keyID = credentials.keyID
        response.nonce = nonce
        response.timestampMs = timestampMs
        response.signature = Data(signature).base64EncodedString()
        response.appAccountToken = token.lowercased()
        let latest = try withStoreErrors { try repository.facts(userID: request.userID) }.transactions
            .max { $0.isOrdered(before: $1) }
        do {
            response.compactJWS = try Self.offerJWS(
                credentials: credentials, productID: request.productID, offerID: request.offerID, nonce: nonce,
                issuedAtSeconds: timestampMs / 1000, transactionID: latest?.transactionID)
        } catch {
            throw RPCError(.internal, "the offer could not be signed; see the server log", cause: error)
        }
        return response
    }

    /// The StoreKit 2 promotional offer (Apple's PromotionalOfferV2SignatureCreator): a compact
    /// JWS, header `alg ES256, kid, typ JWT`, claims `aud "promotional-offer"`, `iss`, `iat`
    /// (seconds), `bid`, `nonce`, `productId`, `offerIdentifier` and the customer's
    /// `transactionId` when there is one (optional for Apple, recommended).
    static func offerJWS(credentials: ServerAPICredentials, productID: String, offerID: String, nonce: String,
                         issuedAtSeconds: Int64, transactionID: String?) throws -> String {
        var claims: [String: Any] = [
            "aud": "promotional-offer", "iss": credentials.issuerID, "iat": issuedAtSeconds,
            "bid": credentials.bundleID, "nonce": nonce, "productId": productID, "offerIdentifier": offerID,
        ]
        claims["transactionId"] = transactionID
        let header = ["alg": "ES256", "kid": credentials.keyID, "typ": "JWT"]
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        return try credentials.key.signCompact(
            header: Array(try JSONSerialization.data(withJSONObject: header, options: options)),
            payload: Array(try JSONSerialization.data(withJSONObject: claims, options: options)))
    }
}
