import EntitlementAPI
import ProtobufWire
import XCTest

/// Byte-for-byte agreement with Google's protobuf, which our gRPC clients use.
///
/// The hex below was produced once with grpcio-tools (Python protobuf 7.36.2):
/// `python -m grpc_tools.protoc -I Protos --python_out=OUT entitlement/v1/entitlement.proto
/// grpc/health/v1/health.proto`, then `Message(...).SerializeToString().hex()` with the same
/// field values as the Swift side of each test (see Fixtures.swift).
final class PythonGoldenTests: XCTestCase {
    private func assertGolden<Message: ProtobufMessage>(
        _ message: Message, _ golden: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(hexString(message.protobufBytes()), golden, file: file, line: line)
        XCTAssertEqual(try Message(protobufBytes: hex(golden)), message, file: file, line: line)
    }

    /// CheckEntitlementRequest(user_id="u0", product_id="pro.monthly")
    func testCheckEntitlementRequest() {
        assertGolden(EntitlementV1.CheckEntitlementRequest(userID: "u0", productID: "pro.monthly"),
                     "0a027530120b70726f2e6d6f6e74686c79")
    }

    /// CheckEntitlementResponse(active=True, entitlements=[<Fixtures.entitlement>],
    /// evaluated_at_ms=1702600000000): every Entitlement field, nested.
    func testCheckEntitlementResponseWithEveryEntitlementField() {
        assertGolden(
            EntitlementV1.CheckEntitlementResponse(
                active: true, entitlements: [Fixtures.entitlement], evaluatedAtMs: 1_702_600_000_000),
            "080112570a0b70726f2e6d6f6e74686c79120a31303030303030303031180220012880d095ffbc31"
                + "3080e090d3c6313880e8c2f3c8314001480150015801620832313030303030316802720a3130"
                + "3030303030303039" + "7a0370726f188084f9d6c631")
    }

    /// SubmitReceiptResponse(environment=ENVIRONMENT_PRODUCTION, new_transactions=2,
    /// apple_status=-21007): a negative int32 is a ten-byte varint.
    func testSubmitReceiptResponseWithNegativeInt32() {
        assertGolden(
            EntitlementV1.SubmitReceiptResponse(environment: .production, newTransactions: 2,
                                                appleStatus: -21_007),
            "0801180220f1dbfeffffffffffff01")
    }

    /// ListHistoryRequest(user_id="u0", page_size=-1)
    func testListHistoryRequestWithNegativePageSize() {
        assertGolden(EntitlementV1.ListHistoryRequest(userID: "u0", pageSize: -1),
                     "0a02753010ffffffffffffffffff01")
    }

    /// ListHistoryResponse(events=[<Fixtures.historyEvent>, HistoryEvent()],
    /// next_page_token="tok"): the empty event is still sent (`0a00`).
    func testListHistoryResponseWithEmptyEvent() {
        assertGolden(
            EntitlementV1.ListHistoryResponse(
                events: [Fixtures.historyEvent, EntitlementV1.HistoryEvent()], nextPageToken: "tok"),
            "0a470a0465762d311004188084f9d6c631220b70726f2e6d6f6e74686c792a0a3130303030303030"
                + "3039320a313030303030303030313880e090d3c631400148035206524546554e44" + "0a00"
                + "1203746f6b")
    }

    /// ExplainEntitlementRequest(user_id="u0", entitlement_id="pro", at_ms=1702600000000): its
    /// entitlement_id and at_ms numbers are the reverse of CheckEntitlementRequest's.
    func testExplainEntitlementRequest() {
        assertGolden(
            EntitlementV1.ExplainEntitlementRequest(userID: "u0", entitlementID: "pro", atMs: 1_702_600_000_000),
            "0a0275301a0370726f208084f9d6c631")
    }

    /// ExplainEntitlementResponse(evaluated_at_ms=1702600000000, explanations=[
    /// EntitlementExplanation(entitlement=Entitlement(product_id="pro.monthly",
    /// state=GRACE_PERIOD, active=True), reason="GRACE_PERIOD: x", transactions=[
    /// TransactionFact(transaction_id="2000", product_id="pro.monthly",
    /// purchased_at_ms=1702600000000, expires_at_ms=1705200000000, revoked_at_ms=1703000000000,
    /// upgraded=True, source=EVENT_SOURCE_NOTIFICATION_V2, decisive=True), TransactionFact()]),
    /// EntitlementExplanation()])
    func testExplainEntitlementResponse() {
        let fact = EntitlementV1.TransactionFact(
            transactionID: "2000", productID: "pro.monthly", purchasedAtMs: 1_702_600_000_000,
            expiresAtMs: 1_705_200_000_000, revokedAtMs: 1_703_000_000_000, upgraded: true, source: .notificationV2,
            decisive: true)
        let explanation = EntitlementV1.EntitlementExplanation(
            entitlement: EntitlementV1.Entitlement(productID: "pro.monthly", state: .gracePeriod, active: true),
            reason: "GRACE_PERIOD: x", transactions: [fact, EntitlementV1.TransactionFact()])
        assertGolden(
            EntitlementV1.ExplainEntitlementResponse(
                evaluatedAtMs: 1_702_600_000_000, explanations: [explanation, EntitlementV1.EntitlementExplanation()]),
            "088084f9d6c63112560a110a0b70726f2e6d6f6e74686c7918022001120f47524143455f504552494f443a20781a2e"
                + "0a0432303030120b70726f2e6d6f6e74686c79188084f9d6c6312080b8dcaed03128808cd795c831300138034001"
                + "1a001200")
    }

    /// WatchEntitlementChangesRequest(after_cursor="c1.000000000000002a", user_id="u0")
    func testWatchEntitlementChangesRequest() {
        assertGolden(EntitlementV1.WatchEntitlementChangesRequest(afterCursor: "c1.000000000000002a", userID: "u0"),
                     "0a1363312e3030303030303030303030303030326112027530")
    }

    /// EntitlementChange(cursor="c", change_id="ch-1", user_id="u0", entitlement=Entitlement(
    /// product_id="pro.monthly", state=REVOKED), previous_state=ACTIVE, occurred_at_ms=1702600000000,
    /// cause_event_id="ev-1"); and the empty message is empty.
    func testEntitlementChange() {
        assertGolden(
            EntitlementV1.EntitlementChange(
                cursor: "c", changeID: "ch-1", userID: "u0",
                entitlement: EntitlementV1.Entitlement(productID: "pro.monthly", state: .revoked),
                previousState: .active, occurredAtMs: 1_702_600_000_000, causeEventID: "ev-1"),
            "0a0163120463682d311a027530220f0a0b70726f2e6d6f6e74686c7918052801308084f9d6c6313a0465762d31")
        assertGolden(EntitlementV1.EntitlementChange(), "")
    }

    /// GetAppAccountTokenRequest(user_id="u0"),
    /// GetAppAccountTokenResponse(app_account_token="6f1c2a4e-0b7d-4c1e-9a3f-2d5e8b7c9a10")
    func testAppAccountTokenMessages() {
        assertGolden(EntitlementV1.GetAppAccountTokenRequest(userID: "u0"), "0a027530")
        assertGolden(
            EntitlementV1.GetAppAccountTokenResponse(appAccountToken: "6f1c2a4e-0b7d-4c1e-9a3f-2d5e8b7c9a10"),
            "0a2436663163326134652d306237642d346331652d396133662d326435653862376339613130")
    }

    /// RefreshEntitlementsRequest(user_id="u0"), RefreshEntitlementsResponse(entitlements=[
    /// Entitlement(product_id="pro.monthly", state=ACTIVE, active=True), Entitlement()],
    /// new_transactions=3, refreshed_at_ms=1702600000000)
    func testRefreshEntitlements() {
        assertGolden(EntitlementV1.RefreshEntitlementsRequest(userID: "u0"), "0a027530")
        var response = EntitlementV1.RefreshEntitlementsResponse()
        response.entitlements = [
            EntitlementV1.Entitlement(productID: "pro.monthly", state: .active, active: true),
            EntitlementV1.Entitlement(),
        ]
        response.newTransactions = 3
        response.refreshedAtMs = 1_702_600_000_000
        assertGolden(response, "0a110a0b70726f2e6d6f6e74686c79180120010a001003188084f9d6c631")
    }

    /// SubmitReceiptRequest(user_id="u0", receipt_data="TUlJ", signed_transaction="eyJh.eyJi.c2ln",
    /// transaction_id="2000")
    func testSubmitReceiptRequestWithEveryField() {
        assertGolden(
            EntitlementV1.SubmitReceiptRequest(
                userID: "u0", receiptData: "TUlJ", signedTransaction: "eyJh.eyJi.c2ln", transactionID: "2000"),
            "0a027530120454556c4a1a0e65794a682e65794a692e63326c6e220432303030")
    }

    /// SubmitReceiptResponse(environment=ENVIRONMENT_SANDBOX, entitlements=[Entitlement(
    /// product_id="pro.monthly", active=True)], new_transactions=1)
    func testSubmitReceiptResponseWithEntitlements() {
        assertGolden(
            EntitlementV1.SubmitReceiptResponse(
                environment: .sandbox,
                entitlements: [EntitlementV1.Entitlement(productID: "pro.monthly", active: true)],
                newTransactions: 1),
            "0802120f0a0b70726f2e6d6f6e74686c7920011801")
    }

    /// ListHistoryRequest(user_id="u0", page_size=50, page_token="p2", product_id="pro.monthly")
    func testListHistoryRequestWithEveryField() {
        assertGolden(
            EntitlementV1.ListHistoryRequest(userID: "u0", pageSize: 50, pageToken: "p2", productID: "pro.monthly"),
            "0a02753010321a027032220b70726f2e6d6f6e74686c79")
    }

    /// HistoryEvent(event_id="ev-2", type=OWNERSHIP_TRANSFER, occurred_at_ms=1702600000000,
    /// product_id="pro.monthly", transaction_id="2000", original_transaction_id="1000",
    /// expires_at_ms=1705200000000, environment=PRODUCTION, source=RECEIPT,
    /// apple_notification_type="DID_RENEW", actor="ops@example.com", reason="moved to u1")
    func testHistoryEventWithEveryField() {
        var event = EntitlementV1.HistoryEvent(
            eventID: "ev-2", type: .ownershipTransfer, occurredAtMs: 1_702_600_000_000, productID: "pro.monthly",
            transactionID: "2000", originalTransactionID: "1000", expiresAtMs: 1_705_200_000_000,
            environment: .production, source: .receipt, appleNotificationType: "DID_RENEW")
        event.actor = "ops@example.com"
        event.reason = "moved to u1"
        assertGolden(
            event,
            "0a0465762d32100c188084f9d6c631220b70726f2e6d6f6e74686c792a04323030303204313030303880b8dcaed031"
                + "4001480152094449445f52454e45575a0f6f7073406578616d706c652e636f6d620b6d6f76656420746f207531")
    }

    /// HealthCheckRequest(service="entitlement.v1.EntitlementService"),
    /// HealthCheckResponse(status=SERVING)
    func testHealth() {
        assertGolden(GRPCHealthV1.HealthCheckRequest(service: "entitlement.v1.EntitlementService"),
                     "0a21656e7469746c656d656e742e76312e456e7469746c656d656e7453657276696365")
        assertGolden(GRPCHealthV1.HealthCheckResponse(status: .serving), "0801")
    }
}
