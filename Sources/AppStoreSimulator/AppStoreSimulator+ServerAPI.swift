import Entitlements
import Foundation
import HTTPCore
import JWS

extension AppStoreSimulator {
    /// The Server API endpoints the service uses, by the path after `/inApps/`.
    enum ServerAPIEndpoint: String {
        case history = "v2/history"
        case subscriptions = "v1/subscriptions"
        case transactions = "v1/transactions"
        case notificationHistory = "v1/notifications/history"
        case appAccountToken = "v1/transactions/{originalTransactionId}/appAccountToken"
        case extendRenewalDate = "v1/subscriptions/extend"
        case massExtension = "v1/subscriptions/extend/mass"
        case massExtensionStatus = "v1/subscriptions/extend/mass/{productId}/{requestIdentifier}"
        case orderLookup = "v1/lookup"
        case consumption = "v2/transactions/consumption"
        case refundHistory = "v2/refund/lookup"
        case testNotification = "v1/notifications/test"
        case testNotificationStatus = "v1/notifications/test/{token}"

        var method: String {
            switch self {
            case .notificationHistory, .testNotification, .massExtension: "POST"
            case .appAccountToken, .extendRenewalDate, .consumption: "PUT"
            case .history, .subscriptions, .transactions, .orderLookup, .testNotificationStatus, .massExtensionStatus,
                 .refundHistory:
                "GET"
            }
        }
    }

    /// Answers a Server API request, or returns false when `request` is not one: production
    /// under `/inApps/`, sandbox under `/sandbox/inApps/` (the two base URLs of a client).
    ///
    /// Order as Apple's: route, then the JWT (401), then an armed fault (429/5xx), then the read.
    func serveServerAPI(_ request: HTTPRequest, writer: any HTTPResponseWriter) -> Bool {
        let path = request.pathWithoutQuery
        let environment: Environment
        let rest: Substring
        if path.hasPrefix("/inApps/") {
            (environment, rest) = (.production, path.dropFirst("/inApps/".count))
        } else if path.hasPrefix("/sandbox/inApps/") {
            (environment, rest) = (.sandbox, path.dropFirst("/sandbox/inApps/".count))
        } else {
            return false
        }
        let (endpoint, transactionID) = Self.route(rest)
        guard let endpoint else {
            writer.respond(.text(404, "not found\n"))
            return true
        }
        let method = endpoint.method
        guard request.method == method else {
            var response = HTTPResponse.text(405, "method not allowed\n")
            response.headers.add(name: "allow", value: method)
            writer.respond(response)
            return true
        }
        let response = answerServerAPI(request, endpoint, transactionID, environment)
        apiFaults.withLock {
            $0.record("\(method) \(endpoint.rawValue) \(environment.appleName) \(response.status)")
        }
        writer.respond(response)
        return true
    }

    private static func route(_ rest: Substring) -> (ServerAPIEndpoint?, String) {
        if rest == ServerAPIEndpoint.notificationHistory.rawValue { return (.notificationHistory, "") }
        if rest == ServerAPIEndpoint.testNotification.rawValue { return (.testNotification, "") }
        if rest == ServerAPIEndpoint.massExtension.rawValue { return (.massExtension, "") }
        let massPrefix = ServerAPIEndpoint.massExtension.rawValue + "/"
        if rest.hasPrefix(massPrefix) {
            // {productId}/{requestIdentifier}, kept together; the answer splits them.
            let tail = String(rest.dropFirst(massPrefix.count))
            return tail.split(separator: "/").count == 2 ? (.massExtensionStatus, tail) : (nil, "")
        }
        let testPrefix = ServerAPIEndpoint.testNotification.rawValue + "/"
        if rest.hasPrefix(testPrefix), !rest.dropFirst(testPrefix.count).contains("/") {
            // Clients percent-encode the token's '-' and '_' (any server decodes them).
            let token = String(rest.dropFirst(testPrefix.count))
            return (.testNotificationStatus, token.removingPercentEncoding ?? token)
        }
        let transactions = ServerAPIEndpoint.transactions.rawValue + "/"
        if rest.hasPrefix(transactions) {
            let tail = rest.dropFirst(transactions.count)
            if tail.hasSuffix("/appAccountToken") {
                let id = tail.dropLast("/appAccountToken".count)
                return id.contains("/") ? (nil, "") : (.appAccountToken, String(id))
            }
        }
        // Before `v1/subscriptions/{id}`, whose id never holds a slash.
        for endpoint in [ServerAPIEndpoint.extendRenewalDate, .orderLookup, .consumption, .refundHistory, .history,
                         .subscriptions, .transactions] {
            let prefix = endpoint.rawValue + "/"
            if rest.hasPrefix(prefix), !rest.dropFirst(prefix.count).contains("/") {
                return (endpoint, String(rest.dropFirst(prefix.count)))
            }
        }
        return (nil, "")
    }

    private func answerServerAPI(
        _ request: HTTPRequest, _ endpoint: ServerAPIEndpoint, _ transactionID: String, _ environment: Environment
    ) -> HTTPResponse {
        let nowMs = wallClock()
        guard let apiKey else { return Self.unauthenticated("the simulator was started without a Server API key") }
        if let reason = apiKey.rejection(authorization: request.headers["authorization"], nowMs: nowMs) {
            return Self.unauthenticated(reason)
        }
        if let fault = apiFaults.withLock({ $0.take() }) {
            var response = Self.apiJSON(fault.error.httpStatus, fault.error.jsonObject)
            if let after = fault.retryAfterMs {
                response.headers.add(name: "retry-after", value: String(nowMs + after))
            }
            return response
        }
        let query = Self.queryItems(request.path)
        let answer: Result<[String: Any], ServerAPIErrorAnswer>
        switch endpoint {
        case .history: answer = historyAnswer(transactionID, environment, query)
        case .subscriptions: answer = statusesAnswer(transactionID, environment, query)
        case .transactions: answer = transactionAnswer(transactionID, environment)
        case .notificationHistory: answer = notificationHistoryAnswer(request.body, environment, query)
        case .appAccountToken:
            // Apple's one answer without a body.
            guard let error = appAccountTokenAnswer(transactionID, environment, request.body) else {
                return HTTPResponse(status: 200, headers: HTTPHeaders(), body: [])
            }
            answer = .failure(error)
        case .extendRenewalDate: answer = extendRenewalDateAnswer(transactionID, environment, request.body)
        case .orderLookup: answer = orderLookupAnswer(transactionID, environment)
        case .testNotification: answer = testNotificationAnswer(environment)
        case .refundHistory: answer = refundHistoryAnswer(transactionID, environment)
        case .massExtension: answer = massExtensionAnswer(environment, request.body)
        case .massExtensionStatus: answer = massExtensionStatusAnswer(transactionID, environment)
        case .testNotificationStatus: answer = testNotificationStatusAnswer(transactionID)
        case .consumption:
            // Apple's 202 without a body.
            guard let error = consumptionAnswer(transactionID, environment, request.body) else {
                return HTTPResponse(status: 202, headers: HTTPHeaders(), body: [])
            }
            answer = .failure(error)
        }
        switch answer {
        case .success(let object): return Self.apiJSON(200, object)
        case .failure(let error): return Self.apiJSON(error.httpStatus, error.jsonObject)
        }
    }

    /// A 401 as Apple sends it, plus the reason in a header for whoever debugs the client.
    static func unauthenticated(_ reason: String) -> HTTPResponse {
        var response = HTTPResponse.text(401, "Unauthenticated\n")
        response.headers.add(name: "x-appstore-sim-reason", value: reason)
        return response
    }

    static func apiJSON(_ status: Int, _ object: [String: Any]) -> HTTPResponse {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: options))
            ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(data))
    }

    static func queryItems(_ path: String) -> [URLQueryItem] {
        guard let mark = path.firstIndex(of: "?") else { return [] }
        var components = URLComponents()
        components.percentEncodedQuery = String(path[path.index(after: mark)...])
        return components.queryItems ?? []
    }

    /// The fields every answer about one app in one environment carries.
    func appFields(_ environment: Environment) -> [String: Any] {
        var fields: [String: Any] = ["bundleId": composer.bundleID, "environment": environment.appleName]
        if environment == .production { fields["appAppleId"] = appAppleID }
        return fields
    }
}
