import AppStoreSimulator
import Foundation
import XCTest

/// The Server API's shapes, paging and errors, as a client sees them over HTTP.
final class ServerAPITests: XCTestCase {
    private typealias F = SimulationFixture

    func testTransactionHistoryPagesByRevisionUntilHasMoreIsFalse() throws {
        let api = try ServerAPIFixture(pageSize: 2)
        let first = try api.purchase(user: "alice")
        for _ in 0..<4 { try api.control("renew", ["original_transaction_id": first]) }
        var seen: [String] = []
        var revision: String?
        var pages = 0
        repeat {
            let query = revision.map { "?revision=\($0)" } ?? ""
            let writer = try api.call("GET", "/inApps/v2/history/\(first)\(query)")
            XCTAssertEqual(writer.status, 200)
            let answer = try XCTUnwrap(writer.json)
            XCTAssertEqual(answer["bundleId"] as? String, ServerAPIFixture.bundleID)
            XCTAssertEqual(answer["environment"] as? String, "Production")
            XCTAssertEqual(answer["appAppleId"] as? Int, 1_234_567_890)
            let signed = try XCTUnwrap(answer["signedTransactions"] as? [String])
            XCTAssertLessThanOrEqual(signed.count, 2)
            seen += try signed.map { try XCTUnwrap(try api.payload($0)["transactionId"] as? String) }
            revision = try XCTUnwrap(answer["revision"] as? String)
            pages += 1
            if answer["hasMore"] as? Bool != true { break }
        } while pages < 10
        XCTAssertEqual(pages, 3, "5 transactions at 2 a page")
        XCTAssertEqual(seen.count, 5)
        XCTAssertEqual(Set(seen).count, 5, "each transaction once")
        XCTAssertEqual(seen.first, first)

        // The last revision asks "what changed since": nothing, then only the refunded one.
        let unchanged = try XCTUnwrap(try api.call("GET", "/inApps/v2/history/\(first)?revision=\(revision!)").json)
        XCTAssertEqual((unchanged["signedTransactions"] as? [String])?.count, 0)
        XCTAssertEqual(unchanged["hasMore"] as? Bool, false)
        try api.control("refund", ["transaction_id": seen[4]])
        let changed = try XCTUnwrap(try api.call("GET", "/inApps/v2/history/\(first)?revision=\(revision!)").json)
        let refunded = try api.payload(try XCTUnwrap((changed["signedTransactions"] as? [String])?.first))
        XCTAssertEqual(refunded["transactionId"] as? String, seen[4])
        XCTAssertNotNil(refunded["revocationDate"])
    }

    func testEachEnvironmentKnowsOnlyItsOwnTransactions() throws {
        let api = try ServerAPIFixture()
        let sandbox = try api.purchase(user: "tester", environment: "sandbox")
        for path in ["/inApps/v2/history/", "/inApps/v1/subscriptions/", "/inApps/v1/transactions/"] {
            let production = try api.call("GET", path + sandbox)
            XCTAssertEqual(production.status, 404, path)
            XCTAssertEqual(production.json?["errorCode"] as? Int, 4_040_010, path)
            XCTAssertNotNil(production.json?["errorMessage"] as? String)
            XCTAssertEqual(try api.call("GET", "/sandbox" + path + sandbox).status, 200, path)
        }
        let answer = try XCTUnwrap(try api.call("GET", "/sandbox/inApps/v2/history/\(sandbox)").json)
        XCTAssertEqual(answer["environment"] as? String, "Sandbox")
        XCTAssertNil(answer["appAppleId"], "sandbox answers carry no appAppleId")
    }

    func testBadRequestsAnswerApplesErrorCodes() throws {
        let api = try ServerAPIFixture()
        let id = try api.purchase(user: "alice")
        let cases: [(String, String, [String: Any]?, Int, Int)] = [
            ("GET", "/inApps/v1/transactions/abc", nil, 400, 4_000_006),
            ("GET", "/inApps/v1/transactions/999", nil, 404, 4_040_010),
            ("GET", "/inApps/v2/history/\(id)?revision=bogus", nil, 400, 4_000_005),
            ("GET", "/inApps/v2/history/\(id)?sort=SIDEWAYS", nil, 400, 4_000_021),
            ("GET", "/inApps/v1/subscriptions/\(id)?status=9", nil, 400, 4_000_031),
            ("POST", "/inApps/v1/notifications/history", ["endDate": F.start], 400, 4_000_015),
            ("POST", "/inApps/v1/notifications/history", ["startDate": F.start, "endDate": F.start], 400, 4_000_013),
            ("POST", "/inApps/v1/notifications/history",
             ["startDate": F.start - 181 * F.day, "endDate": F.start], 400, 4_000_012),
            ("POST", "/inApps/v1/notifications/history?paginationToken=zz",
             ["startDate": F.start - F.day, "endDate": F.start + 1], 400, 4_000_014),
        ]
        for (method, path, body, status, code) in cases {
            let writer = try api.call(method, path, body: body)
            XCTAssertEqual(writer.status, status, path)
            XCTAssertEqual(writer.json?["errorCode"] as? Int, code, path)
        }
        XCTAssertEqual(try api.call("POST", "/inApps/v1/transactions/\(id)").status, 405)
        XCTAssertEqual(try api.call("GET", "/inApps/v9/nothing/\(id)").status, 404)
    }

    func testSubscriptionStatusesAndTransactionInfo() throws {
        let api = try ServerAPIFixture()
        let first = try api.purchase(user: "alice")
        let second = try api.purchase(user: "alice")
        try api.control("refund", ["transaction_id": second])
        let answer = try XCTUnwrap(try api.call("GET", "/inApps/v1/subscriptions/\(first)").json)
        let groups = try XCTUnwrap(answer["data"] as? [[String: Any]])
        XCTAssertEqual(groups.count, 1)
        XCTAssertEqual(groups[0]["subscriptionGroupIdentifier"] as? String, "20000001")
        let chains = try XCTUnwrap(groups[0]["lastTransactions"] as? [[String: Any]])
        XCTAssertEqual(chains.map { $0["originalTransactionId"] as? String }, [first, second])
        XCTAssertEqual(chains.map { $0["status"] as? Int }, [1, 5], "active, revoked")
        let renewal = try api.payload(try XCTUnwrap(chains[0]["signedRenewalInfo"] as? String))
        XCTAssertEqual(renewal["originalTransactionId"] as? String, first)
        let info = try api.payload(try XCTUnwrap(chains[1]["signedTransactionInfo"] as? String))
        XCTAssertNotNil(info["revocationDate"])

        let revoked = try XCTUnwrap(try api.call("GET", "/inApps/v1/subscriptions/\(first)?status=5").json)
        let only = (revoked["data"] as? [[String: Any]])?.first?["lastTransactions"] as? [[String: Any]]
        XCTAssertEqual(only?.map { $0["originalTransactionId"] as? String }, [second])

        let single = try XCTUnwrap(try api.call("GET", "/inApps/v1/transactions/\(second)").json)
        let transaction = try api.payload(try XCTUnwrap(single["signedTransactionInfo"] as? String))
        XCTAssertEqual(transaction["transactionId"] as? String, second)
    }

    func testNotificationHistoryPagesEveryNotificationOfTheEnvironment() throws {
        let api = try ServerAPIFixture(pageSize: 2)
        let id = try api.purchase(user: "alice")
        try api.control("auto-renew", ["original_transaction_id": id, "enabled": false])
        try api.control("auto-renew", ["original_transaction_id": id, "enabled": true])
        try api.control("refund", ["transaction_id": id])
        _ = try api.purchase(user: "tester", environment: "sandbox")
        var uuids: [String] = []
        var token: String?
        var pages = 0
        repeat {
            let query = token.map { "?paginationToken=\($0)" } ?? ""
            let writer = try api.call(
                "POST", "/inApps/v1/notifications/history\(query)",
                body: ["startDate": F.start - F.day, "endDate": F.start + 1])
            let answer = try XCTUnwrap(writer.json, "\(writer.status ?? 0)")
            let entries = try XCTUnwrap(answer["notificationHistory"] as? [[String: Any]])
            for entry in entries {
                let payload = try api.payload(try XCTUnwrap(entry["signedPayload"] as? String))
                uuids.append(try XCTUnwrap(payload["notificationUUID"] as? String))
                XCTAssertEqual((entry["sendAttempts"] as? [Any])?.count, 0, "no webhook: never attempted")
            }
            token = answer["paginationToken"] as? String
            pages += 1
            if answer["hasMore"] as? Bool != true {
                XCTAssertNil(token)
                break
            }
        } while pages < 10
        XCTAssertEqual(pages, 2)
        XCTAssertEqual(uuids.count, 4, "subscribe, renewal off, on, refund; the sandbox purchase is not here")
        XCTAssertEqual(Set(uuids).count, 4)
        let sandbox = try XCTUnwrap(try api.call(
            "POST", "/sandbox/inApps/v1/notifications/history",
            body: ["startDate": F.start - F.day, "endDate": F.start + 1]).json)
        XCTAssertEqual((sandbox["notificationHistory"] as? [Any])?.count, 1)
        let before = try XCTUnwrap(try api.call(
            "POST", "/inApps/v1/notifications/history", body: ["startDate": F.start - F.day, "endDate": F.start]).json)
        XCTAssertEqual((before["notificationHistory"] as? [Any])?.count, 0, "endDate is exclusive")
    }

    func testArmedFaultsAnswer429WithRetryAfterThen5xxThenRecover() throws {
        let api = try ServerAPIFixture()
        let id = try api.purchase(user: "alice")
        try api.control("api-fault", ["status": 429, "count": 2, "retry_after_ms": 1500])
        for _ in 0..<2 {
            let limited = try api.call("GET", "/inApps/v1/transactions/\(id)")
            XCTAssertEqual(limited.status, 429)
            XCTAssertEqual(limited.json?["errorCode"] as? Int, 4_290_000)
            XCTAssertEqual(limited.header("retry-after"), String(F.start + 1500), "Unix ms, as Apple sends it")
        }
        XCTAssertEqual(try api.call("GET", "/inApps/v1/transactions/\(id)").status, 200)
        try api.control("api-fault", ["status": 503, "count": 1, "error_code": 5_000_001])
        // A rejected token does not use up the armed fault.
        XCTAssertEqual(try api.call("GET", "/inApps/v1/transactions/\(id)", authorization: "Bearer x.y.z").status, 401)
        let failed = try api.call("GET", "/inApps/v1/transactions/\(id)")
        XCTAssertEqual(failed.status, 503)
        XCTAssertEqual(failed.json?["errorCode"] as? Int, 5_000_001)
        XCTAssertNil(failed.header("retry-after"))
        XCTAssertEqual(try api.call("GET", "/inApps/v1/transactions/\(id)").status, 200)

        let writer = RecordingWriter()
        api.service.handle(HTTPRequestFactory.get("/control/api-requests"), writer: writer)
        let tally = try XCTUnwrap(writer.json)
        XCTAssertEqual(tally["total"] as? Int, 6)
        let requests = try XCTUnwrap(tally["requests"] as? [String: Int])
        XCTAssertEqual(requests["GET v1/transactions Production 429"], 2)
        XCTAssertEqual(requests["GET v1/transactions Production 200"], 2)
        XCTAssertEqual(requests["GET v1/transactions Production 401"], 1)
        XCTAssertEqual(requests["GET v1/transactions Production 503"], 1)
    }
}
