import EntitlementAPI
import ProtobufWire
import XCTest

/// Every message survives encode-then-decode with all fields set, and a default message is
/// zero bytes both ways.
final class RoundTripTests: XCTestCase {
    private func assertRoundTrip<Message: ProtobufMessage>(
        _ message: Message, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertNotEqual(message, Message(), "fixture should set fields", file: file, line: line)
        XCTAssertEqual(try Message(protobufBytes: message.protobufBytes()), message,
                       file: file, line: line)
        XCTAssertEqual(Message().protobufBytes(), [], file: file, line: line)
        XCTAssertEqual(try Message(protobufBytes: [UInt8]()), Message(), file: file, line: line)
    }

    func testEntitlement() {
        assertRoundTrip(Fixtures.entitlement)
    }

    func testCheckEntitlementRequest() {
        assertRoundTrip(EntitlementV1.CheckEntitlementRequest(
            userID: "u0", productID: "pro.monthly", atMs: 1_702_600_000_000, entitlementID: "pro"))
    }

    func testCheckEntitlementResponse() {
        assertRoundTrip(EntitlementV1.CheckEntitlementResponse(
            active: true, entitlements: [Fixtures.entitlement, EntitlementV1.Entitlement()],
            evaluatedAtMs: 1_702_600_000_000))
    }

    func testSubmitReceiptRequest() {
        assertRoundTrip(EntitlementV1.SubmitReceiptRequest(
            userID: "u0", receiptData: "MIIT...base64==", signedTransaction: "eyJhbGciOiJFUzI1NiJ9.e30.sig"))
    }

    func testSubmitReceiptResponse() {
        assertRoundTrip(EntitlementV1.SubmitReceiptResponse(
            environment: .sandbox, entitlements: [Fixtures.entitlement], newTransactions: 3,
            appleStatus: 21_007))
        assertRoundTrip(EntitlementV1.SubmitReceiptResponse(appleStatus: -1))
    }

    func testHistoryEvent() {
        assertRoundTrip(Fixtures.historyEvent)
    }

    func testListHistoryRequest() {
        assertRoundTrip(EntitlementV1.ListHistoryRequest(
            userID: "u0", pageSize: 50, pageToken: "opaque", productID: "pro.monthly"))
    }

    func testListHistoryResponse() {
        assertRoundTrip(EntitlementV1.ListHistoryResponse(
            events: [Fixtures.historyEvent, EntitlementV1.HistoryEvent(), Fixtures.historyEvent],
            nextPageToken: "next"))
    }

    func testExplainEntitlementRequest() {
        assertRoundTrip(EntitlementV1.ExplainEntitlementRequest(
            userID: "u0", productID: "pro.monthly", entitlementID: "pro", atMs: 1_702_600_000_000))
    }

    func testExplainEntitlementResponse() {
        let fact = EntitlementV1.TransactionFact(
            transactionID: "1000000009", productID: "pro.monthly", purchasedAtMs: 1_702_600_000_000,
            expiresAtMs: 1_705_200_000_000, revokedAtMs: 1_703_000_000_000, upgraded: true, source: .notificationV1,
            decisive: true)
        assertRoundTrip(fact)
        let explanation = EntitlementV1.EntitlementExplanation(
            entitlement: Fixtures.entitlement, reason: "ACTIVE: the period of transaction 1000000009 runs until …",
            transactions: [fact, EntitlementV1.TransactionFact()])
        assertRoundTrip(explanation)
        assertRoundTrip(EntitlementV1.ExplainEntitlementResponse(
            evaluatedAtMs: 1_702_600_000_000, explanations: [explanation, EntitlementV1.EntitlementExplanation()]))
    }

    func testHealthCheckRequest() {
        assertRoundTrip(GRPCHealthV1.HealthCheckRequest(service: "entitlement.v1.EntitlementService"))
    }

    func testHealthCheckResponse() {
        assertRoundTrip(GRPCHealthV1.HealthCheckResponse(status: .notServing))
    }

    /// Proto3 enums are open: a number this build does not know survives a round trip.
    func testUnknownEnumValuesSurvive() throws {
        var entitlement = EntitlementV1.Entitlement()
        entitlement.state = EntitlementV1.EntitlementState(rawValue: 42)
        entitlement.productType = EntitlementV1.ProductType(rawValue: -7)
        entitlement.environment = EntitlementV1.Environment(rawValue: 3)
        let decoded = try EntitlementV1.Entitlement(protobufBytes: entitlement.protobufBytes())
        XCTAssertEqual(decoded.state.rawValue, 42)
        XCTAssertEqual(decoded.productType.rawValue, -7)
        XCTAssertEqual(decoded.environment.rawValue, 3)
        XCTAssertEqual("\(decoded.state)", "EntitlementState(42)")

        let event = EntitlementV1.HistoryEvent(type: .init(rawValue: 13), source: .init(rawValue: 4))
        XCTAssertEqual(try EntitlementV1.HistoryEvent(protobufBytes: event.protobufBytes()), event)
        let health = GRPCHealthV1.HealthCheckResponse(status: .init(rawValue: 9))
        XCTAssertEqual(try GRPCHealthV1.HealthCheckResponse(protobufBytes: health.protobufBytes()), health)
    }

    func testEnumDescriptionsUseProtoNames() {
        XCTAssertEqual("\(EntitlementV1.Environment.sandbox)", "ENVIRONMENT_SANDBOX")
        XCTAssertEqual("\(EntitlementV1.EventType.ownershipTransfer)", "EVENT_TYPE_OWNERSHIP_TRANSFER")
        XCTAssertEqual("\(GRPCHealthV1.HealthCheckResponse.ServingStatus.serviceUnknown)", "SERVICE_UNKNOWN")
    }
}
