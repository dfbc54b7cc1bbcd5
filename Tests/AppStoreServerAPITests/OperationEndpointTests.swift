@testable import AppStoreServerAPI
import Entitlements
import Foundation
import Testing

/// The support and money endpoints: the requests the client builds and how Apple's answers
/// (and refusals) read.
struct OperationEndpointTests {
    static let requestID = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"

    private func object(_ body: [UInt8]?) throws -> [String: Any] {
        let bytes = try #require(body)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func extendPutsApplesFieldsAndReadsTheEffectiveDate() async throws {
        let api = ScriptedServerAPI([.json(200, """
            {"originalTransactionId":"2000000123","webOrderLineItemId":"9000","effectiveDate":1800000000000,\
            "success":true}
            """)])
        let answer = try await ClientTests.client(api).extendRenewalDate(
            originalTransactionID: "2000000123", extendByDays: 7, reasonCode: 3, requestIdentifier: Self.requestID,
            environment: .production)
        #expect(answer == RenewalExtension(environment: .production, originalTransactionID: "2000000123",
                                           webOrderLineItemID: "9000", effectiveDateMs: 1_800_000_000_000,
                                           success: true))
        let call = try #require(api.calls.first)
        #expect(call.method == "PUT")
        #expect(call.url.absoluteString == "https://prod.test/inApps/v1/subscriptions/extend/2000000123")
        let body = try object(call.body)
        #expect(body["extendByDays"] as? Int == 7 && body["extendReasonCode"] as? Int == 3)
        #expect(body["requestIdentifier"] as? String == Self.requestID)
    }

    /// Apple's business-rule refusals (403 with a code) are not the credentials' fault.
    @Test(arguments: [4030004, 4030005])
    func aRefusedExtensionIsRefusedNotUnauthorizedAndNotRetried(code: Int) async throws {
        let api = ScriptedServerAPI([.json(403, "{\"errorCode\":\(code),\"errorMessage\":\"Forbidden - no.\"}")])
        let error = await #expect(throws: ServerAPIError.self) {
            try await ClientTests.client(api).extendRenewalDate(
                originalTransactionID: "1", extendByDays: 1, reasonCode: 0, requestIdentifier: Self.requestID,
                environment: .sandbox)
        }
        #expect(error?.code == .refused && error?.appleErrorCode == code)
        #expect(error?.message.contains("\(code)") == true && error?.message.contains("Forbidden - no.") == true)
        #expect(api.calls.count == 1)
    }

    @Test func lookUpOrderAsksSandboxWhenProductionKnowsNoSuchOrder() async throws {
        let api = ScriptedServerAPI([.json(200, "{\"status\":1}"),
                                     .json(200, "{\"status\":0,\"signedTransactions\":[\"a.b.c\"]}")])
        let lookup = try await ClientTests.client(api).lookUpOrder(orderID: "MK5TTTVWJH")
        #expect(lookup == OrderLookup(environment: .sandbox, found: true, signedTransactions: ["a.b.c"]))
        #expect(api.calls.map(\.url.absoluteString) == ["https://prod.test/inApps/v1/lookup/MK5TTTVWJH",
                                                        "https://sandbox.test/inApps/v1/lookup/MK5TTTVWJH"])
    }

    @Test func consumptionIsAcceptedWith202AndItsBodyHasApplesNames() async throws {
        let api = ScriptedServerAPI([.json(202, "")])
        let body = AppStoreServerClient.consumptionBody(
            customerConsented: true, consumptionPercentage: 25_000, deliveryStatus: "DELIVERED",
            sampleContentProvided: false, refundPreference: "GRANT_PRORATED")
        try await ClientTests.client(api).sendConsumption(transactionID: "42", body: body, environment: .production)
        let call = try #require(api.calls.first)
        #expect(call.method == "PUT")
        #expect(call.url.absoluteString == "https://prod.test/inApps/v2/transactions/consumption/42")
        let sent = try object(call.body)
        #expect(sent["customerConsented"] as? Bool == true && sent["consumptionPercentage"] as? Int == 25_000)
        #expect(sent["deliveryStatus"] as? String == "DELIVERED" && sent["sampleContentProvided"] as? Bool == false)
        #expect(sent["refundPreference"] as? String == "GRANT_PRORATED")
        let withoutPreference = try object(AppStoreServerClient.consumptionBody(
            customerConsented: true, consumptionPercentage: 0, deliveryStatus: "UNDELIVERED_OTHER",
            sampleContentProvided: true, refundPreference: nil))
        #expect(withoutPreference["refundPreference"] == nil && withoutPreference.count == 4)
    }

    @Test func aRejectedConsumptionAnswerIsInvalidRequestAndNotRetried() async throws {
        let api = ScriptedServerAPI([.json(400, "{\"errorCode\":4000138,\"errorMessage\":\"Invalid consent.\"}")])
        let error = await #expect(throws: ServerAPIError.self) {
            try await ClientTests.client(api).sendConsumption(transactionID: "42", body: Array("{}".utf8),
                                                              environment: .production)
        }
        #expect(error?.code == .invalidRequest && api.calls.count == 1)
    }

    @Test func aTransactionTheEnvironmentDoesNotKnowIsNotFoundNamingIt() async throws {
        let unknown = "{\"errorCode\":4040010,\"errorMessage\":\"Transaction id not found.\"}"
        let api = ScriptedServerAPI([.json(404, unknown)])
        let error = await #expect(throws: ServerAPIError.self) {
            try await ClientTests.client(api).sendConsumption(transactionID: "42", body: Array("{}".utf8),
                                                              environment: .sandbox)
        }
        #expect(error?.code == .notFound && api.calls.count == 1)
        #expect(error?.message == "Apple's App Store Server API (sandbox) does not know transaction id 42")
    }

    @Test func pathSegmentsKeepUnreservedCharactersAndEncodeTheRest() {
        #expect(AppStoreServerClient.pathSegment("2000000123") == "2000000123")
        #expect(AppStoreServerClient.pathSegment("d6067bc3-1f2c_1796649276833") == "d6067bc3-1f2c_1796649276833")
        #expect(AppStoreServerClient.pathSegment("1/../2") == "1%2F..%2F2")
        #expect(AppStoreServerClient.pathSegment("a b?c") == "a%20b%3Fc")
    }
}
