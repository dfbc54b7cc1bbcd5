import AppStore
import AppStoreSimulator
import Entitlements
import Foundation
import HTTPCore
import JWS
import Testing

/// `appAccountToken` the way Apple carries it: from a purchase (StoreKit's purchase option) or
/// from the Server API's Set App Account Token, into the transaction, its renewals, the renewal
/// info and every notification about them.
struct AppAccountTokenTests {
    typealias F = SimulationFixture
    static let token = "9f0c1a52-7d3e-4b8a-a6c1-2e5f7b9d0c13"

    static func tokenPath(_ id: String) -> String { "/inApps/v1/transactions/\(id)/appAccountToken" }

    /// A V2 notification from the notification history, with its transaction and renewal info.
    struct Notification {
        var type: String
        var transaction: JWSTransactionPayload
        var renewal: JWSRenewalInfoPayload?
    }

    let api: ServerAPIFixture
    let verifier: JWSVerifier

    init() throws {
        api = try ServerAPIFixture(pageSize: 50)
        verifier = JWSVerifier(trustedRoots: try TrustedRoots(pem: api.simulator.rootCertificatePEM))
    }

    func control(_ name: String, _ body: [String: Any]) throws -> (status: Int?, json: [String: Any]?) {
        let writer = RecordingWriter()
        api.service.handle(HTTPRequestFactory.post("/control/\(name)", body), writer: writer)
        return (writer.status, writer.json)
    }

    func subscribe(user: String, token: String? = nil, environment: String = "production") throws -> String {
        var body: [String: Any] = ["product_id": "pro.monthly", "user_token": user, "period": "30d",
                                   "environment": environment]
        body["app_account_token"] = token
        let answer = try control("purchase", body)
        try #require(answer.status == 200, "\(answer.json ?? [:])")
        return try #require(answer.json?["transaction_id"] as? String)
    }

    func setToken(_ id: String, _ body: [String: Any], environment: String = "") throws -> RecordingWriter {
        try api.call("PUT", environment + Self.tokenPath(id), body: body)
    }

    func decode<T>(_ jws: String, _ parse: ([UInt8]) throws -> T) throws -> T {
        try parse(try verifier.verify(jws, at: F.start + 400 * F.day).payload)
    }

    /// Every V2 notification sent so far, oldest first.
    func notifications() throws -> [Notification] {
        let writer = try api.call("POST", "/inApps/v1/notifications/history",
                                  body: ["startDate": F.start - F.day, "endDate": F.start + 400 * F.day])
        let entries = try #require(writer.json?["notificationHistory"] as? [[String: Any]])
        return try entries.map { entry in
            let payload = try decode(try #require(entry["signedPayload"] as? String)) {
                try NotificationV2Payload.parse($0)
            }
            let data = try #require(payload.data)
            let transaction = try decode(try #require(data.signedTransactionInfo)) {
                try JWSTransactionPayload.parse($0)
            }
            let renewal = try data.signedRenewalInfo.map { try decode($0) { try JWSRenewalInfoPayload.parse($0) } }
            return Notification(type: payload.notificationType, transaction: transaction, renewal: renewal)
        }
    }

    /// The transactions of the customer's history, as the Server API signs them.
    func history(_ id: String) throws -> [JWSTransactionPayload] {
        let writer = try api.call("GET", "/inApps/v2/history/\(id)")
        let signed = try #require(writer.json?["signedTransactions"] as? [String])
        return try signed.map { try decode($0) { try JWSTransactionPayload.parse($0) } }
    }

    /// The renewal info of the chain in the subscription statuses answer.
    func statusRenewal(_ id: String) throws -> JWSRenewalInfoPayload {
        let writer = try api.call("GET", "/inApps/v1/subscriptions/\(id)")
        let groups = try #require(writer.json?["data"] as? [[String: Any]])
        let last = try #require((groups.first?["lastTransactions"] as? [[String: Any]])?.first)
        return try decode(try #require(last["signedRenewalInfo"] as? String)) { try JWSRenewalInfoPayload.parse($0) }
    }

    @Test func aPurchaseTokenIsInTheSubscribedNotificationsTransactionAndRenewalInfo() throws {
        let id = try subscribe(user: "alice", token: Self.token)
        let subscribed = try #require(try notifications().first { $0.type == "SUBSCRIBED" })
        #expect(subscribed.transaction.transactionID == id)
        #expect(subscribed.transaction.appAccountToken == Self.token)
        let renewal = try #require(subscribed.renewal)
        #expect(renewal.originalTransactionID == id)
        #expect(renewal.appAccountToken == Self.token)
    }

    @Test func renewalsAndTheirNotificationsKeepThePurchaseToken() throws {
        let id = try subscribe(user: "alice", token: Self.token)
        _ = try control("renew", ["original_transaction_id": id])
        _ = try control("change-product", ["original_transaction_id": id, "product_id": "pro.yearly"])
        let sent = try notifications()
        #expect(sent.map(\.type) == ["SUBSCRIBED", "DID_RENEW", "DID_CHANGE_RENEWAL_PREF"])
        for notification in sent {
            #expect(notification.transaction.appAccountToken == Self.token, "\(notification.type)")
            #expect(notification.renewal?.appAccountToken == Self.token, "\(notification.type)")
        }
        #expect(Set(sent.map(\.transaction.transactionID)).count == 3)
        #expect(try history(id).allSatisfy { $0.appAccountToken == Self.token })
        #expect(try statusRenewal(id).appAccountToken == Self.token)
    }

    @Test func v1NotificationsCarryThePurchaseTokenAsAppAccountTokenOfEachReceiptInfo() throws {
        var fixture = F()
        let bought = try fixture.simulation.purchase(PurchaseRequest(
            productID: "pro.monthly", type: .autoRenewable, periodMs: F.month, userToken: "alice",
            appAccountToken: Self.token))
        let renewed = try fixture.simulation.advance(byMs: F.month).events
        let authority = try SigningAuthority(
            notBeforeMs: F.start - 365 * F.day, notAfterMs: F.start + 5 * 365 * F.day)
        let composer = NotificationComposer(version: .v1, bundleID: "com.example.app", bundleVersion: "1",
                                            sharedSecret: F.secret, signer: authority.signer)
        for event in bought.events + renewed {
            let body = try #require(try composer.body(for: event))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            let receipt = try #require(json["unified_receipt"] as? [String: Any])
            let infos = try #require(receipt["latest_receipt_info"] as? [[String: Any]])
            #expect(!infos.isEmpty)
            #expect(infos.allSatisfy { $0["app_account_token"] as? String == Self.token }, "\(event.notificationType)")
            let notification = try NotificationV1.parse(body, receivedAtMs: event.signedDateMs)
            #expect(notification.transactions.allSatisfy { $0.appAccountToken == Self.token })
        }
        #expect(renewed.map(\.notificationType) == ["DID_RENEW"])
    }

    @Test func aPurchaseWithATokenThatIsNotAUUIDIsRefused() throws {
        let answer = try control("purchase", ["product_id": "pro.monthly", "app_account_token": "alice"])
        #expect(answer.status == 400)
    }

    @Test func setAppAccountTokenPutsTheTokenOnTheWholeChainFromThenOn() throws {
        let id = try subscribe(user: "bob")
        _ = try control("renew", ["original_transaction_id": id])
        let before = try history(id)
        #expect(before.count == 2)
        #expect(before.allSatisfy { $0.appAccountToken == nil })
        let revision = try #require(try api.call("GET", "/inApps/v2/history/\(id)").json?["revision"] as? String)

        let writer = try setToken(id, ["appAccountToken": Self.token])
        #expect(writer.status == 200)
        #expect(writer.json == nil, "Apple answers 200 with an empty body")

        #expect(try history(id).allSatisfy { $0.appAccountToken == Self.token })
        let changed = try #require(
            try api.call("GET", "/inApps/v2/history/\(id)?revision=\(revision)").json?["signedTransactions"]
                as? [String])
        #expect(changed.count == 2, "a rewritten transaction is a changed one")
        #expect(try statusRenewal(id).appAccountToken == Self.token)
        let info = try #require(try api.call("GET", "/inApps/v1/transactions/\(id)").json?["signedTransactionInfo"]
            as? String)
        #expect(try decode(info) { try JWSTransactionPayload.parse($0) }.appAccountToken == Self.token)

        _ = try control("renew", ["original_transaction_id": id])
        let sent = try notifications()
        #expect(sent.map(\.type) == ["SUBSCRIBED", "DID_RENEW", "DID_RENEW"], "setting the token notifies nothing")
        let earlier = sent.dropLast()
        #expect(earlier.allSatisfy { $0.transaction.appAccountToken == nil }, "sent notifications keep their facts")
        let renewal = try #require(sent.last)
        #expect(renewal.transaction.appAccountToken == Self.token)
        #expect(renewal.renewal?.appAccountToken == Self.token)

        let other = "0b8e6d2a-1c4f-4e7b-9a3d-5c6e7f8a9b0c"
        #expect(try setToken(id, ["appAccountToken": other]).status == 200, "a token can be reset")
        #expect(try history(id).allSatisfy { $0.appAccountToken == other })
    }

    @Test func setAppAccountTokenAnswersApplesErrors() throws {
        let id = try subscribe(user: "carol")
        let renewalID = try #require(
            try control("renew", ["original_transaction_id": id]).json?["transaction_id"] as? String)
        let cases: [(String, [String: Any], Int, Int)] = [
            (id, ["appAccountToken": "not-a-uuid"], 400, 4_000_183),
            (id, ["appAccountToken": ""], 400, 4_000_183),
            (id, [:], 400, 4_000_183),
            ("999", ["appAccountToken": Self.token], 404, 4_040_005),
            (renewalID, ["appAccountToken": Self.token], 400, 4_000_187),
            ("abc", ["appAccountToken": Self.token], 400, 4_000_006),
        ]
        for (target, body, status, code) in cases {
            let writer = try setToken(target, body)
            #expect(writer.status == status, "\(target) \(body)")
            #expect(writer.json?["errorCode"] as? Int == code, "\(target) \(body)")
            #expect(writer.json?["errorMessage"] is String)
        }
        #expect(try history(id).allSatisfy { $0.appAccountToken == nil }, "a refused request changes nothing")
    }

    @Test func setAppAccountTokenIsPerEnvironmentAndJWTChecked() throws {
        let id = try subscribe(user: "dave")
        let tester = try subscribe(user: "tester", environment: "sandbox")
        let production = try setToken(tester, ["appAccountToken": Self.token])
        #expect(production.status == 404)
        #expect(production.json?["errorCode"] as? Int == 4_040_005, "tells a client to ask sandbox")
        #expect(try setToken(tester, ["appAccountToken": Self.token], environment: "/sandbox").status == 200)

        let unsigned = try api.call("PUT", Self.tokenPath(id), body: ["appAccountToken": Self.token],
                                    authorization: "Bearer nope")
        #expect(unsigned.status == 401)
        let get = try api.call("GET", Self.tokenPath(id))
        #expect(get.status == 405)
        #expect(get.header("allow") == "PUT")
        #expect(try history(id).allSatisfy { $0.appAccountToken == nil })
    }

    @Test func setAppAccountTokenAnswersArmedFaultsThenWorks() throws {
        let id = try subscribe(user: "erin")
        let armed = try control("api-fault", ["status": "429", "count": "1", "retry_after_ms": "1500"])
        #expect(armed.status == 200)
        let limited = try setToken(id, ["appAccountToken": Self.token])
        #expect(limited.status == 429)
        #expect(limited.json?["errorCode"] as? Int == 4_290_000)
        #expect(limited.header("retry-after") == String(F.start + 1500))
        #expect(try history(id).allSatisfy { $0.appAccountToken == nil })
        #expect(try setToken(id, ["appAccountToken": Self.token]).status == 200)

        let writer = RecordingWriter()
        api.service.handle(HTTPRequestFactory.get("/control/api-requests"), writer: writer)
        let tally = try #require(writer.json?["requests"] as? [String: Int])
        let label = "PUT v1/transactions/{originalTransactionId}/appAccountToken Production"
        #expect(tally[label + " 429"] == 1)
        #expect(tally[label + " 200"] == 1)
    }
}
