import AppStore
import Testing

/// The promotional offer signature's text: Apple's seven fields, in Apple's order, joined by
/// U+2063, token and nonce lowercase (StoreKit rebuilds it byte for byte on the device).
struct PromotionalOfferPayloadTests {
    @Test func fieldsInApplesOrderJoinedByTheInvisibleSeparator() {
        let text = PromotionalOfferPayload.text(
            bundleID: "com.example.app", keyID: "KEY123", productID: "pro.monthly", offerID: "winback",
            appAccountToken: "3F2504E0-4F89-41D3-9A0C-0305E82C3301", nonce: "A1B2C3D4-0000-4000-8000-00000000000F",
            timestampMs: 1_700_000_000_123)
        #expect(text == "com.example.app\u{2063}KEY123\u{2063}pro.monthly\u{2063}winback\u{2063}"
                + "3f2504e0-4f89-41d3-9a0c-0305e82c3301\u{2063}a1b2c3d4-0000-4000-8000-00000000000f\u{2063}"
                + "1700000000123")
        #expect(Array("\u{2063}".utf8) == [0xE2, 0x81, 0xA3], "the separator's UTF-8 bytes are what is signed")
        #expect(text.split(separator: "\u{2063}").count == 7)
    }
}
