import Entitlements
import Foundation

extension AppStoreServerClient {
    /// `GET /inApps/v2/history/{transactionId}`, every page: the same query repeated with each
    /// page's `revision` until `hasMore` is false. With `revision` (a previous call's), only what
    /// changed since. `environment` nil asks production first, then sandbox on 4040010/4040005.
    public func transactionHistory(transactionID: String, revision: String? = nil, environment: Environment? = nil,
                                   deadline: ContinuousClock.Instant? = nil) async throws -> TransactionHistory {
        let deadline = deadline ?? defaultDeadline()
        let path = "inApps/v2/history/" + Self.pathSegment(transactionID)
        let first = try await inEitherEnvironment(first: environment, what: "transaction id \(transactionID)") {
            environment in
            try await request(.transactionHistory, environment: environment, method: "GET", path: path,
                              query: Self.historyQuery(revision), deadline: deadline, read: ServerAPIBody.historyPage)
        }
        var history = TransactionHistory(environment: first.environment,
                                         signedTransactions: first.value.signedTransactions,
                                         revision: first.value.revision)
        var hasMore = first.value.hasMore
        // Apple pages at 20; the bound only stops a server that never says hasMore=false.
        var pages = 1
        while hasMore {
            guard pages < 10_000 else {
                throw ServerAPIError(.unavailable, "Apple's transaction history did not end after \(pages) pages")
            }
            let answer = try await request(.transactionHistory, environment: history.environment, method: "GET",
                                           path: path, query: Self.historyQuery(history.revision),
                                           deadline: deadline, read: ServerAPIBody.historyPage)
            guard case .value(let page) = answer else {
                throw ServerAPIError(.unavailable, "Apple's transaction history lost transaction id "
                                     + "\(transactionID) between pages; retry later")
            }
            history.signedTransactions += page.signedTransactions
            history.revision = page.revision
            hasMore = page.hasMore
            pages += 1
        }
        return history
    }

    /// `GET /inApps/v2/refund/lookup/{transactionId}`, every page: the customer's refunded
    /// transactions (signed, unverified), in either environment.
    public func refundHistory(transactionID: String, environment: Environment? = nil,
                              deadline: ContinuousClock.Instant? = nil) async throws -> [String] {
        let deadline = deadline ?? defaultDeadline()
        let path = "inApps/v2/refund/lookup/" + Self.pathSegment(transactionID)
        var revision: String?
        var signed: [String] = []
        var answered = environment
        for _ in 0..<1_000 {
            let page = try await inEitherEnvironment(first: answered, what: "transaction id \(transactionID)") {
                environment in
                try await request(.refundHistory, environment: environment, method: "GET", path: path,
                                  query: Self.historyQuery(revision), deadline: deadline,
                                  read: ServerAPIBody.historyPage)
            }
            answered = page.environment
            signed += page.value.signedTransactions
            guard page.value.hasMore else { return signed }
            revision = page.value.revision
        }
        throw ServerAPIError(.unavailable, "Apple's refund history did not end after 1000 pages")
    }

    /// `GET /inApps/v1/subscriptions/{transactionId}`: every subscription group's status.
    public func subscriptionStatuses(transactionID: String, environment: Environment? = nil,
                                     deadline: ContinuousClock.Instant? = nil) async throws -> SubscriptionStatuses {
        try await getTransaction(.subscriptionStatuses, "inApps/v1/subscriptions/", transactionID: transactionID,
                                 environment: environment, deadline: deadline, read: ServerAPIBody.statuses)
    }

    /// `GET /inApps/v1/transactions/{transactionId}`: one signed transaction.
    public func transactionInfo(transactionID: String, environment: Environment? = nil,
                                deadline: ContinuousClock.Instant? = nil) async throws -> TransactionInfo {
        try await getTransaction(.transactionInfo, "inApps/v1/transactions/", transactionID: transactionID,
                                 environment: environment, deadline: deadline, read: ServerAPIBody.transactionInfo)
    }

    /// `GET {pathPrefix}{transactionId}` in either environment: the single-page lookups of one
    /// transaction differ only in their path and in how they read Apple's answer.
    private func getTransaction<Value>(
        _ endpoint: Endpoint, _ pathPrefix: String, transactionID: String, environment: Environment?,
        deadline: ContinuousClock.Instant?, read: ([UInt8], Environment) throws -> Value
    ) async throws -> Value {
        let deadline = deadline ?? defaultDeadline()
        let path = pathPrefix + Self.pathSegment(transactionID)
        return try await inEitherEnvironment(first: environment, what: "transaction id \(transactionID)") {
            environment in
            try await request(endpoint, environment: environment, method: "GET", path: path, deadline: deadline) {
                try read($0, environment)
            }
        }.value
    }

    /// One page of `POST /inApps/v1/notifications/history` in one environment: the signed
    /// payloads Apple sent (or tried to send) between `startMs` and `endMs`, and the token for
    /// the next page. Reconciliation calls it page by page so it can make each batch durable
    /// before asking for the next. No environment fallback: each environment has its own history.
    public func notificationHistoryPage(environment: Environment, startMs: Int64, endMs: Int64,
                                        paginationToken: String? = nil,
                                        deadline: ContinuousClock.Instant? = nil) async throws
        -> NotificationHistoryPage {
        let deadline = deadline ?? defaultDeadline()
        let body = Array("{\"startDate\":\(startMs),\"endDate\":\(endMs)}".utf8)
        let query = paginationToken.map { [URLQueryItem(name: "paginationToken", value: $0)] } ?? []
        let answer = try await request(.notificationHistory, environment: environment, method: "POST",
                                       path: "inApps/v1/notifications/history", query: query, body: body,
                                       deadline: deadline, read: ServerAPIBody.notificationHistoryPage)
        switch answer {
        case .value(let page): return page
        case .otherEnvironment(let code):
            throw ServerAPIError(.notFound, "Apple's notification history (\(environment.rawValue)) found nothing",
                                 appleErrorCode: code)
        }
    }

    /// `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken` with
    /// `{"appAccountToken": "<uuid>"}`: Apple puts `appAccountToken` on that purchase (a subscription's
    /// chain keeps it through renewals and product changes), so a purchase made outside the app, or
    /// one bound to the wrong account, carries the app's account from then on. Apple answers 200 with
    /// an empty body.
    ///
    /// Apple's errors (developer.apple.com/documentation/appstoreserverapi/set-app-account-token):
    /// 400 with 4000006 (invalid transaction id), 4000048 (an app transaction id), 4000183 (the token
    /// is not a UUID), 4000185 (a Family Sharing transaction), 4000187 (not an original transaction
    /// id), all ``ServerAPIError/Code/invalidRequest``; 404 4040005 (unknown original transaction id:
    /// the other environment is asked, then ``ServerAPIError/Code/notFound``); 429 and 500 retried.
    /// Setting the same token again changes nothing, so retrying a PUT is safe.
    ///
    /// `appAccountToken` is sent as given (Apple stores it as given; we issue lowercase), but one
    /// that is not a UUID fails here, as Apple would fail it, without spending a request.
    /// Returns the environment that knew the transaction.
    public func setAppAccountToken(originalTransactionID: String, appAccountToken: String,
                                   environment: Environment? = nil,
                                   deadline: ContinuousClock.Instant? = nil) async throws -> Environment {
        guard UUID(uuidString: appAccountToken) != nil else {
            throw ServerAPIError(.invalidRequest, "an app account token must be a UUID")
        }
        let deadline = deadline ?? defaultDeadline()
        let path = "inApps/v1/transactions/" + Self.pathSegment(originalTransactionID) + "/appAccountToken"
        // A UUID has nothing JSON escapes, so the body is written out directly.
        let bytes = Array("{\"appAccountToken\":\"\(appAccountToken)\"}".utf8)
        return try await inEitherEnvironment(first: environment,
                                             what: "original transaction id \(originalTransactionID)") {
            environment in
            try await request(.appAccountToken, environment: environment, method: "PUT", path: path, body: bytes,
                              deadline: deadline) { _ in () }
        }.environment
    }

    func defaultDeadline() -> ContinuousClock.Instant {
        ContinuousClock.now.advanced(by: configuration.defaultDeadline)
    }

    static func historyQuery(_ revision: String?) -> [URLQueryItem] {
        guard let revision, !revision.isEmpty else { return [] }
        return [URLQueryItem(name: "revision", value: revision)]
    }

    /// Transaction ids are digits, order ids letters and digits, test tokens a UUID and digits
    /// joined by '_': RFC 3986's unreserved characters pass as they are; anything else is
    /// percent-encoded so it cannot change the path.
    static func pathSegment(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
