import Entitlements
import Foundation
import JWS

/// The Server API's answers: the simulation read under its lock, then signed by the
/// simulator's PKI at simulated now, in Apple's JSON shapes.
extension AppStoreSimulator {
    typealias APIAnswer = Result<[String: Any], ServerAPIErrorAnswer>

    /// `GET /inApps/v2/history/{transactionId}?revision=R&sort=ASCENDING`.
    func historyAnswer(_ transactionID: String, _ environment: Environment, _ query: [URLQueryItem]) -> APIAnswer {
        let sort = query.last { $0.name == "sort" }?.value ?? "ASCENDING"
        guard sort == "ASCENDING" else { return .failure(.invalidSort) }
        let revision = query.last { $0.name == "revision" }?.value
        let pageSize = apiPageSize
        return apiRead { (simulation: Simulation) throws(ServerAPIErrorAnswer) -> [String: Any] in
            let page = try simulation.transactionHistory(
                transactionID: transactionID, environment: environment, revision: revision, pageSize: pageSize)
            var answer = appFields(environment)
            answer["revision"] = page.revision
            answer["hasMore"] = page.hasMore
            answer["signedTransactions"] = try page.transactions.map { (transaction) throws(ServerAPIErrorAnswer) in
                try signed { () throws(JWSError) in try composer.signedTransaction(transaction, at: simulation.nowMs) }
            }
            return answer
        }
    }

    /// `GET /inApps/v1/subscriptions/{transactionId}?status=N...`.
    func statusesAnswer(_ transactionID: String, _ environment: Environment, _ query: [URLQueryItem]) -> APIAnswer {
        var statuses: Set<Int>?
        for item in query where item.name == "status" {
            guard let status = item.value.flatMap({ Int($0) }), (1...5).contains(status) else {
                return .failure(.invalidStatus)
            }
            statuses = (statuses ?? []).union([status])
        }
        return apiRead { (simulation: Simulation) throws(ServerAPIErrorAnswer) -> [String: Any] in
            let groups = try simulation.subscriptionStatuses(
                transactionID: transactionID, environment: environment, statuses: statuses)
            var data: [[String: Any]] = []
            for (groupID, chains) in groups {
                var lastTransactions: [[String: Any]] = []
                for chain in chains {
                    let transactionInfo = try signed { () throws(JWSError) in
                        try composer.signedTransaction(chain.transaction, at: simulation.nowMs)
                    }
                    let renewalInfo = try signed { () throws(JWSError) in
                        try composer.signedRenewalInfo(
                            chain.renewalInfo, productID: chain.currentProductID,
                            appAccountToken: chain.transaction.appAccountToken, environment: environment)
                    }
                    lastTransactions.append([
                        "status": chain.status, "originalTransactionId": chain.transaction.originalTransactionID,
                        "signedTransactionInfo": transactionInfo, "signedRenewalInfo": renewalInfo,
                    ])
                }
                data.append(["subscriptionGroupIdentifier": groupID, "lastTransactions": lastTransactions])
            }
            var answer = appFields(environment)
            answer["data"] = data
            return answer
        }
    }

    /// `GET /inApps/v1/transactions/{transactionId}`.
    func transactionAnswer(_ transactionID: String, _ environment: Environment) -> APIAnswer {
        apiRead { (simulation: Simulation) throws(ServerAPIErrorAnswer) -> [String: Any] in
            let transaction = try simulation.transactionInfo(transactionID: transactionID, environment: environment)
            let signedInfo = try signed { () throws(JWSError) in
                try composer.signedTransaction(transaction, at: simulation.nowMs)
            }
            return ["signedTransactionInfo": signedInfo]
        }
    }

    /// `POST /inApps/v1/notifications/history?paginationToken=T` with
    /// `{"startDate": ms, "endDate": ms, "onlyFailures": bool}`.
    func notificationHistoryAnswer(_ body: [UInt8], _ environment: Environment, _ query: [URLQueryItem]) -> APIAnswer {
        guard let fields = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .failure(.generalBadRequest)
        }
        guard let start = (fields["startDate"] as? NSNumber)?.int64Value else { return .failure(.invalidStartDate) }
        guard let end = (fields["endDate"] as? NSNumber)?.int64Value else { return .failure(.invalidEndDate) }
        let onlyFailures = fields["onlyFailures"] as? Bool ?? false
        let token = query.last { $0.name == "paginationToken" }?.value
        // Real time passes first (what fell due is sent and recorded); dates are wall-clock.
        _ = try? read { _ in () }
        let nowMs = wallClock()
        let delivery = self.delivery
        let attempts = { (uuid: String) in delivery?.attempts(notificationUUID: uuid) ?? [] }
        let pageSize = apiPageSize
        let result = history.withLock { history -> Result<NotificationHistory.Page, ServerAPIErrorAnswer> in
            do throws(ServerAPIErrorAnswer) {
                return .success(try history.page(
                    environment: environment, startMs: start, endMs: end, paginationToken: token,
                    pageSize: pageSize, nowMs: nowMs,
                    include: { !onlyFailures || !attempts($0.notificationUUID).contains { $0.result == "SUCCESS" } }))
            } catch {
                return .failure(error)
            }
        }
        return result.map { page in
            var answer: [String: Any] = ["hasMore": page.hasMore]
            answer["paginationToken"] = page.paginationToken
            answer["notificationHistory"] = page.entries.map { entry -> [String: Any] in
                [
                    "signedPayload": entry.signedPayload,
                    "sendAttempts": attempts(entry.notificationUUID).map {
                        ["attemptDate": $0.attemptDateMs, "sendAttemptResult": $0.result]
                    },
                ]
            }
            return answer
        }
    }

    /// `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken` with
    /// `{"appAccountToken": "<uuid>"}`: nil is Apple's 200 with an empty body.
    func appAccountTokenAnswer(
        _ originalTransactionID: String, _ environment: Environment, _ body: [UInt8]
    ) -> ServerAPIErrorAnswer? {
        guard let fields = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .generalBadRequest
        }
        let token = fields["appAccountToken"] as? String
        return write { (simulation: inout Simulation) -> ServerAPIErrorAnswer? in
            do throws(ServerAPIErrorAnswer) {
                try simulation.setAppAccountToken(
                    originalTransactionID: originalTransactionID, token: token, environment: environment)
                return nil
            } catch {
                return error
            }
        }
    }

    /// Runs a read under the simulation's lock (real time passes first), keeping Apple's error.
    func apiRead(_ body: (Simulation) throws(ServerAPIErrorAnswer) -> [String: Any]) -> APIAnswer {
        let result = try? read { (simulation: Simulation) -> APIAnswer in
            do throws(ServerAPIErrorAnswer) {
                return .success(try body(simulation))
            } catch {
                return .failure(error)
            }
        }
        return result ?? .failure(.generalInternal)
    }

    private func signed(_ body: () throws(JWSError) -> String) throws(ServerAPIErrorAnswer) -> String {
        do {
            return try body()
        } catch {
            throw .generalInternal
        }
    }
}
