@testable import AppStoreServerAPI
import Entitlements
import Foundation
import JWS
import Testing

/// The client against a scripted Apple: paging, the environment switch, and how each error
/// status is retried or not, counted in requests.
struct ClientTests {
    static let nowMs: Int64 = 1_800_000_000_000

    static func client(_ api: ScriptedServerAPI, sleeps: RecordedSleeps = RecordedSleeps(), maxAttempts: Int = 4)
        throws -> AppStoreServerClient {
        let credentials = ServerAPICredentials(keyID: "KEY123", issuerID: "issuer-1", bundleID: "com.example.app",
                                               key: try ES256SigningKey.generate())
        let configuration = AppStoreServerClient.Configuration(
            credentials: credentials, productionURL: URL(string: "https://prod.test")!,
            sandboxURL: URL(string: "https://sandbox.test")!, requestsPerSecond: 1000, maxAttempts: maxAttempts)
        return AppStoreServerClient(configuration: configuration, transport: api, now: { nowMs },
                                    sleep: { try await sleeps.sleep($0) }, jitter: { 0.5 })
    }

    static func page(_ transactions: [String], revision: String, hasMore: Bool) -> ScriptedServerAPI.Answer {
        let list = transactions.map { "\"\($0)\"" }.joined(separator: ",")
        return .json(200, "{\"revision\":\"\(revision)\",\"hasMore\":\(hasMore),\"bundleId\":\"com.example.app\","
                     + "\"environment\":\"Production\",\"signedTransactions\":[\(list)]}")
    }

    @Test func historyFollowsEveryPageRepeatingTheQueryWithTheRevision() async throws {
        let api = ScriptedServerAPI([Self.page(["a", "b"], revision: "r1", hasMore: true),
                                     Self.page(["c"], revision: "r2", hasMore: true),
                                     Self.page(["d"], revision: "r3", hasMore: false)])
        let history = try await Self.client(api).transactionHistory(transactionID: "1000")
        #expect(history.signedTransactions == ["a", "b", "c", "d"])
        #expect(history.revision == "r3")
        #expect(history.environment == .production)
        #expect(api.calls.map(\.url.absoluteString) == [
            "https://prod.test/inApps/v2/history/1000", "https://prod.test/inApps/v2/history/1000?revision=r1",
            "https://prod.test/inApps/v2/history/1000?revision=r2",
        ])
        #expect(api.calls.allSatisfy { $0.method == "GET" && $0.authorization.hasPrefix("Bearer ") })
    }

    @Test(arguments: [4040010, 4040005])
    func notFoundInProductionAsksSandboxAndRecordsIt(code: Int) async throws {
        let api = ScriptedServerAPI([.json(404, "{\"errorCode\":\(code),\"errorMessage\":\"not found\"}"),
                                     Self.page(["s"], revision: "r", hasMore: false)])
        let history = try await Self.client(api).transactionHistory(transactionID: "7")
        #expect(history.environment == .sandbox)
        #expect(api.calls.map { $0.url.host } == ["prod.test", "sandbox.test"])
    }

    @Test func notFoundInBothIsNotFound() async throws {
        let api = ScriptedServerAPI([.json(404, "{\"errorCode\":4040010}"), .json(404, "{\"errorCode\":4040010}")])
        await #expect(throws: ServerAPIError.self) {
            do {
                _ = try await Self.client(api).transactionInfo(transactionID: "7")
            } catch let error as ServerAPIError {
                #expect(error.code == .notFound)
                throw error
            }
        }
        #expect(api.calls.count == 2)
    }

    @Test func unauthorizedIsNotRetriedAndSaysWhatToCheck() async throws {
        let api = ScriptedServerAPI([.json(401, "")])
        do {
            _ = try await Self.client(api).subscriptionStatuses(transactionID: "7")
            Issue.record("401 must fail")
        } catch let error as ServerAPIError {
            #expect(error.code == .unauthorized)
            #expect(error.message.contains("first release"))
        }
        #expect(api.calls.count == 1)
    }

    @Test func aRefusedTokenIsNotSentAgainWhileAnAcceptedOneIsReused() async throws {
        let info = ScriptedServerAPI.Answer.json(200, "{\"signedTransactionInfo\":\"t\"}")
        let api = ScriptedServerAPI([.json(401, ""), info, info])
        let client = try Self.client(api)
        await #expect(throws: ServerAPIError.self) { try await client.transactionInfo(transactionID: "7") }
        _ = try await client.transactionInfo(transactionID: "7")
        _ = try await client.transactionInfo(transactionID: "7")
        let sent = api.calls.map(\.authorization)
        #expect(sent.count == 3)
        #expect(sent[1] != sent[0])
        #expect(sent[2] == sent[1])
    }

    @Test func serverErrorsAndRetryableCodesAreRetriedWithBackoffThenUnavailable() async throws {
        let api = ScriptedServerAPI([.json(503, ""), .json(404, "{\"errorCode\":4040002}"), .transportError,
                                     .json(500, "{\"errorCode\":5000001}")])
        let sleeps = RecordedSleeps()
        do {
            _ = try await Self.client(api, sleeps: sleeps).transactionInfo(transactionID: "7")
            Issue.record("must fail")
        } catch let error as ServerAPIError {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("4 attempts"))
        }
        #expect(api.calls.count == 4)
        // Full jitter at 0.5 of 200, 400, 800 ms.
        #expect(sleeps.all == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
    }

    @Test func retryAfterIsHonouredWithinTheDeadline() async throws {
        let api = ScriptedServerAPI([.json(429, "{\"errorCode\":4290000}", retryAfter: "\(Self.nowMs + 1500)"),
                                     .json(200, "{\"signedTransactionInfo\":\"t\"}")])
        let sleeps = RecordedSleeps()
        let info = try await Self.client(api, sleeps: sleeps).transactionInfo(transactionID: "7")
        #expect(info.signedTransactionInfo == "t")
        #expect(sleeps.all == [.milliseconds(1500)])
        #expect(api.calls.count == 2)
    }

    @Test func retryAfterPastTheDeadlineIsUnavailableAtOnce() async throws {
        let api = ScriptedServerAPI([.json(429, "", retryAfter: "\(Self.nowMs + 60_000)")])
        let sleeps = RecordedSleeps()
        do {
            _ = try await Self.client(api, sleeps: sleeps).transactionInfo(
                transactionID: "7", deadline: .now.advanced(by: .seconds(5)))
            Issue.record("must fail")
        } catch let error as ServerAPIError {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("429"))
        }
        #expect(api.calls.count == 1)
        #expect(sleeps.all.isEmpty)
    }

    @Test func badRequestIsInvalidRequestWithoutRetry() async throws {
        let api = ScriptedServerAPI([
            .json(400, "{\"errorCode\":4000006,\"errorMessage\":\"Invalid transaction id.\"}")])
        do {
            _ = try await Self.client(api).transactionHistory(transactionID: "x")
            Issue.record("must fail")
        } catch let error as ServerAPIError {
            #expect(error.code == .invalidRequest)
            #expect(error.appleErrorCode == 4000006)
        }
        #expect(api.calls.count == 1)
    }

    @Test func notificationHistoryPostsTheWindowAndPassesThePaginationToken() async throws {
        let api = ScriptedServerAPI([
            .json(200, "{\"notificationHistory\":[{\"signedPayload\":\"p1\"},{\"signedPayload\":\"p2\"}],"
                  + "\"paginationToken\":\"next\",\"hasMore\":true}")])
        let page = try await Self.client(api).notificationHistoryPage(
            environment: .sandbox, startMs: 1000, endMs: 2000, paginationToken: "tok en")
        #expect(page == NotificationHistoryPage(signedPayloads: ["p1", "p2"], paginationToken: "next", hasMore: true))
        let call = try #require(api.calls.first)
        #expect(call.method == "POST")
        #expect(call.url.absoluteString
                == "https://sandbox.test/inApps/v1/notifications/history?paginationToken=tok%20en")
        #expect(call.body.map { String(decoding: $0, as: UTF8.self) } == "{\"startDate\":1000,\"endDate\":2000}")
    }

    @Test func statusesFlattenEveryGroup() async throws {
        let api = ScriptedServerAPI([.json(200, """
            {"environment":"Production","bundleId":"b","data":[
             {"subscriptionGroupIdentifier":"g1","lastTransactions":[{"status":1,"originalTransactionId":"10",
              "signedTransactionInfo":"t1","signedRenewalInfo":"r1"}]},
             {"subscriptionGroupIdentifier":"g2","lastTransactions":[{"status":5,"originalTransactionId":"20",
              "signedTransactionInfo":"t2"}]}]}
            """)])
        let statuses = try await Self.client(api).subscriptionStatuses(transactionID: "10")
        #expect(statuses.lastTransactions.map(\.originalTransactionID) == ["10", "20"])
        #expect(statuses.lastTransactions.map(\.status) == [1, 5])
        #expect(statuses.lastTransactions[1].signedRenewalInfo == nil)
    }

    @Test func oneTokenServesManyRequests() async throws {
        let api = ScriptedServerAPI([.json(200, "{\"signedTransactionInfo\":\"t\"}"),
                                     .json(200, "{\"signedTransactionInfo\":\"t\"}")])
        let client = try Self.client(api)
        _ = try await client.transactionInfo(transactionID: "1")
        _ = try await client.transactionInfo(transactionID: "2")
        #expect(Set(api.calls.map(\.authorization)).count == 1)
    }
}
