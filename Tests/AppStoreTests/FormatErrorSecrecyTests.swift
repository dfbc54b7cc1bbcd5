import AppStore
import XCTest

/// Format errors are logged and sent back to the webhook's caller: they name the field and the
/// kind of value found, never a string's text (it may be a receipt or a secret).
final class FormatErrorSecrecyTests: XCTestCase {
    func testAMisplacedStringIsDescribedByItsLengthOnly() {
        let receipt = "MIIT" + String(repeating: "QkFTRTY0", count: 20)
        let body = #"{"notification_type":"DID_RENEW","password":"pw","unified_receipt":"\#(receipt)"}"#
        XCTAssertThrowsError(try NotificationV1.parse(body.bytes, receivedAtMs: 0)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("unified_receipt"), text)
            XCTAssertTrue(text.contains("a string of \(receipt.count) characters"), text)
            XCTAssertFalse(text.contains("MIIT"), text)
            XCTAssertFalse(text.contains("QkFTRTY0"), text)
        }
    }
}
