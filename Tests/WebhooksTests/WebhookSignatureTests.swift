import Testing
import Webhooks

/// The signature as a receiver recomputes it: HMAC-SHA256(secret, "<t>.<body>") in hex.
///
/// Expected values from Python: `hmac.new(key, msg, hashlib.sha256).hexdigest()`.
struct WebhookSignatureTests {
    @Test func headerIsTimestampAndHexHMACOfTimestampDotBody() {
        #expect(WebhookSignature.header(secret: "whsec_test", unixSeconds: 1_700_000_000, body: #"{"a":1}"#)
                == "t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789")
    }

    @Test func anotherTimeSecretOrBodyGivesAnotherSignature() {
        let base = WebhookSignature.header(secret: "whsec_test", unixSeconds: 1_700_000_000, body: #"{"a":1}"#)
        #expect(WebhookSignature.header(secret: "whsec_test", unixSeconds: 1_700_000_001, body: #"{"a":1}"#) != base)
        #expect(WebhookSignature.header(secret: "whsec_tesT", unixSeconds: 1_700_000_000, body: #"{"a":1}"#) != base)
        #expect(WebhookSignature.header(secret: "whsec_test", unixSeconds: 1_700_000_000, body: #"{"a":2}"#) != base)
    }
}
