import AppStore
import XCTest

/// A webhook body is told apart as V1 or V2 and decoded in one pass.
final class NotificationBodyTests: XCTestCase {
    func testAV1BodyIsDecodedAsTheV1Parser() throws {
        let bytes = try Samples.bytes("notification-v1-did-renew-sandbox.json")
        let body = try NotificationBody.decode(bytes, receivedAtMs: 99)
        XCTAssertEqual(body, .v1(try NotificationV1.parse(bytes, receivedAtMs: 99)))
    }

    func testAV2EnvelopeKeepsItsTokenUnread() throws {
        let body = try NotificationBody.decode(Array(#"{"signedPayload":"a.b.c","extra":1}"#.utf8), receivedAtMs: 0)
        XCTAssertEqual(body, .v2(signedPayload: "a.b.c"))
        XCTAssertEqual(try NotificationBody.decode(Array(#"{"signedPayload":""}"#.utf8), receivedAtMs: 0),
                       .v2(signedPayload: ""), "an empty token is still V2 (refused when verified), not V1")
    }

    func testAnythingElseFailsWithV1sFormatError() {
        for (text, code) in [("not json", AppStoreFormatError.Code.invalidJSON), ("[1]", .invalidJSON),
                             (#"{"signedPayload":5}"#, .missingField), (#"{}"#, .missingField)] {
            XCTAssertThrowsError(try NotificationBody.decode(Array(text.utf8), receivedAtMs: 0), text) { error in
                XCTAssertEqual((error as? AppStoreFormatError)?.code, code, text)
            }
        }
    }
}
