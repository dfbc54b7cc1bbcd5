import EntitlementAPI
import ProtobufWire
import XCTest

/// The API messages decode every valid encoding, not just the one our encoder emits.
final class DecodingRobustnessTests: XCTestCase {
    func testFieldsOutOfOrder() throws {
        // at_ms=5, entitlement_id="e", product_id="p", user_id="u": reverse field order.
        let request = try EntitlementV1.CheckEntitlementRequest(
            protobufBytes: hex("18 05  22 01 65  12 01 70  0a 01 75"))
        XCTAssertEqual(request, EntitlementV1.CheckEntitlementRequest(
            userID: "u", productID: "p", atMs: 5, entitlementID: "e"))
    }

    func testRepeatedEntitlementsInterleavedWithScalars() throws {
        // entitlement {product_id:"a"}, active=true, entitlement {product_id:"b"}
        let response = try EntitlementV1.CheckEntitlementResponse(
            protobufBytes: hex("12 03 0a 01 61  08 01  12 03 0a 01 62"))
        XCTAssertTrue(response.active)
        XCTAssertEqual(response.entitlements.map(\.productID), ["a", "b"])
    }

    func testUnknownFieldsOfEveryWireTypeAreSkipped() throws {
        let unknown = "a8 01 07" + "b1 01 0102030405060708" + "ba 01 02 6869" + "bd 01 01020304"
            + "c3 01 08 01 c4 01"
        let request = try GRPCHealthV1.HealthCheckRequest(protobufBytes: hex(unknown + "0a 01 78" + unknown))
        XCTAssertEqual(request.service, "x")
    }

    func testLastValueWins() throws {
        let status = try GRPCHealthV1.HealthCheckResponse(protobufBytes: hex("08 01  08 02"))
        XCTAssertEqual(status.status, .notServing)
        let request = try EntitlementV1.ListHistoryRequest(
            protobufBytes: hex("0a 01 61  10 0a  0a 01 62  10 14"))
        XCTAssertEqual(request.userID, "b")
        XCTAssertEqual(request.pageSize, 20)
    }

    func testWrongWireTypeForKnownFieldIsIgnored() throws {
        // user_id (1) sent as a varint, page_size (2) sent as a string: both ignored.
        let request = try EntitlementV1.ListHistoryRequest(protobufBytes: hex("08 01  12 01 61"))
        XCTAssertEqual(request, EntitlementV1.ListHistoryRequest())
    }

    func testMalformedNestedEntitlementFailsTheWholeMessage() {
        // The nested entitlement's product_id claims 5 bytes but only 1 follows.
        XCTAssertThrowsError(try EntitlementV1.CheckEntitlementResponse(
            protobufBytes: hex("12 03 0a 05 61"))) { error in
            XCTAssertEqual((error as? ProtobufDecodingError)?.code, .lengthPastEnd)
        }
    }

    func testInvalidUTF8InUserIDFails() {
        XCTAssertThrowsError(try EntitlementV1.SubmitReceiptRequest(protobufBytes: hex("0a 02 c3 28"))) {
            XCTAssertEqual(($0 as? ProtobufDecodingError)?.code, .invalidUTF8)
        }
    }
}
