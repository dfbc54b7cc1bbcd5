@testable import AppStoreServerAPI
import Entitlements
import Foundation
import Testing

/// Set App Account Token: the request the client builds and how Apple's answers to it read.
struct AppAccountTokenTests {
    static let token = "7389a31a-fb6d-4569-a2a6-db7d85d84813"

    @Test func putsTheTokenAsJSONOnTheOriginalTransaction() async throws {
        let api = ScriptedServerAPI([.json(200, "")])
        let environment = try await ClientTests.client(api).setAppAccountToken(
            originalTransactionID: "2000000123", appAccountToken: Self.token)
        #expect(environment == .production)
        let call = try #require(api.calls.first)
        #expect(api.calls.count == 1)
        #expect(call.method == "PUT")
        #expect(call.url.absoluteString == "https://prod.test/inApps/v1/transactions/2000000123/appAccountToken")
        #expect(call.authorization.hasPrefix("Bearer "))
        let body = try #require(call.body)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: String])
        #expect(object == ["appAccountToken": Self.token])
    }

    @Test func unknownInProductionIsSetInSandbox() async throws {
        let api = ScriptedServerAPI([
            .json(404, "{\"errorCode\":4040005,\"errorMessage\":\"Original transaction id not found.\"}"),
            .json(200, "")])
        let environment = try await ClientTests.client(api).setAppAccountToken(
            originalTransactionID: "7", appAccountToken: Self.token)
        #expect(environment == .sandbox)
        #expect(api.calls.map { $0.url.absoluteString } == [
            "https://prod.test/inApps/v1/transactions/7/appAccountToken",
            "https://sandbox.test/inApps/v1/transactions/7/appAccountToken",
        ])
    }

    @Test func unknownInBothIsNotFound() async throws {
        let notFound = ScriptedServerAPI.Answer.json(404, "{\"errorCode\":4040005}")
        let api = ScriptedServerAPI([notFound, notFound])
        let error = await #expect(throws: ServerAPIError.self) {
            try await ClientTests.client(api).setAppAccountToken(originalTransactionID: "7",
                                                                 appAccountToken: Self.token)
        }
        #expect(error?.code == .notFound)
        #expect(error?.appleErrorCode == 4040005)
    }

    /// Apple's 400s for this endpoint: invalid UUID, Family Sharing, not an original id.
    @Test(arguments: [4000183, 4000185, 4000187])
    func applesBadRequestsAreInvalidRequestWithoutRetry(code: Int) async throws {
        let api = ScriptedServerAPI([.json(400, "{\"errorCode\":\(code),\"errorMessage\":\"Invalid request.\"}")])
        let error = await #expect(throws: ServerAPIError.self) {
            try await ClientTests.client(api).setAppAccountToken(originalTransactionID: "7",
                                                                 appAccountToken: Self.token)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.appleErrorCode == code)
        #expect(api.calls.count == 1)
    }

    @Test func aServerErrorIsRetriedLikeAnyOther() async throws {
        let api = ScriptedServerAPI([.json(500, "{\"errorCode\":5000001}"), .json(200, "")])
        let sleeps = RecordedSleeps()
        _ = try await ClientTests.client(api, sleeps: sleeps).setAppAccountToken(
            originalTransactionID: "7", appAccountToken: Self.token)
        #expect(api.calls.count == 2)
        #expect(api.calls.allSatisfy { $0.method == "PUT" && $0.body != nil })
        #expect(sleeps.all.count == 1)
    }

    @Test(arguments: ["", "not-a-uuid", "7389a31a-fb6d-4569-a2a6", "7389a31a-fb6d-4569-a2a6-db7d85d84813\"}"])
    func aTokenThatIsNotAUUIDIsRefusedWithoutARequest(token: String) async throws {
        let api = ScriptedServerAPI([])
        let error = await #expect(throws: ServerAPIError.self) {
            try await ClientTests.client(api).setAppAccountToken(originalTransactionID: "7", appAccountToken: token)
        }
        #expect(error?.code == .invalidRequest)
        #expect(api.calls.isEmpty)
    }
}
