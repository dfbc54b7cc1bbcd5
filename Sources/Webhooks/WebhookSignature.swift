import JWS

/// The `Webhook-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
///
/// Signing the timestamp with the body lets a receiver reject a captured request replayed
/// later (Stripe's and Svix's scheme): it recomputes the MAC over the `t` it received, compares
/// in constant time, and refuses a `t` outside its tolerance (5 minutes is usual). Each attempt
/// is signed afresh with the time of that attempt, so a retry days later still verifies.
public enum WebhookSignature {
    /// The header value for `body` sent at `unixSeconds`.
    public static func header(secret: String, unixSeconds: Int64, body: String) -> String {
        let signed = "\(unixSeconds)." + body
        return "t=\(unixSeconds),v1=" + HMACSHA256.hexAuthenticationCode(key: secret.utf8, message: signed.utf8)
    }
}
