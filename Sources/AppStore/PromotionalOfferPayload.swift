/// The text StoreKit's promotional offer signature is made over (the StoreKit 1 form, still
/// accepted): Apple's fields joined by U+2063 INVISIBLE SEPARATOR, in Apple's order, with the
/// app account token and nonce lowercase, as Apple's PromotionalOfferSignatureCreator does.
///
/// The signer signs exactly these UTF-8 bytes (ECDSA P-256 / SHA-256 with the In-App Purchase
/// key, DER, base64); StoreKit rebuilds the same text from what the app passes, so one byte of
/// difference (an upper-case nonce) makes the offer fail on the device.
public enum PromotionalOfferPayload {
    public static let separator = "\u{2063}"

    /// `appBundleID ⁣ keyIdentifier ⁣ productIdentifier ⁣ offerIdentifier ⁣ appAccountToken ⁣
    /// nonce ⁣ timestamp`.
    public static func text(bundleID: String, keyID: String, productID: String, offerID: String,
                            appAccountToken: String, nonce: String, timestampMs: Int64) -> String {
        [bundleID, keyID, productID, offerID, appAccountToken.lowercased(), nonce.lowercased(),
         String(timestampMs)].joined(separator: separator)
    }
}
