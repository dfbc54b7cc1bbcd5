import Entitlements
import Foundation
import JWS

/// The Server API's support operations: renewal-date extension and order lookup.
extension AppStoreSimulator {
    /// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}` with `extendByDays`,
    /// `extendReasonCode` and `requestIdentifier`; RENEWAL_EXTENDED goes to the webhook.
    func extendRenewalDateAnswer(
        _ originalTransactionID: String, _ environment: Environment, _ body: [UInt8]
    ) -> APIAnswer {
        guard let fields = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .failure(.generalBadRequest)
        }
        let days = (fields["extendByDays"] as? NSNumber)?.intValue
        let reason = (fields["extendReasonCode"] as? NSNumber)?.intValue
        let identifier = fields["requestIdentifier"] as? String
        return changeAndNotify { (simulation: inout Simulation) throws(ServerAPIErrorAnswer) in
            let (done, events) = try simulation.extendRenewalDate(
                originalTransactionID: originalTransactionID, extendByDays: days, reasonCode: reason,
                requestIdentifier: identifier, environment: environment)
            var answer: [String: Any] = [
                "originalTransactionId": done.originalTransactionID, "effectiveDate": done.effectiveDateMs,
                "success": true,
            ]
            answer["webOrderLineItemId"] = done.webOrderLineItemID
            return (answer, events)
        }
    }

    /// `GET /inApps/v1/lookup/{orderId}`: `status` 0 with the order's signed transactions, or
    /// `status` 1 (Apple's "invalid order id") when this environment has no such order.
    func orderLookupAnswer(_ orderID: String, _ environment: Environment) -> APIAnswer {
        apiRead { (simulation: Simulation) throws(ServerAPIErrorAnswer) -> [String: Any] in
            let transactions = simulation.orderTransactions(orderID: orderID, environment: environment)
            let signed = try transactions.map { (transaction) throws(ServerAPIErrorAnswer) -> String in
                do {
                    return try composer.signedTransaction(transaction, at: simulation.nowMs)
                } catch {
                    throw .generalInternal
                }
            }
            return ["status": signed.isEmpty ? 1 : 0, "signedTransactions": signed]
        }
    }

    /// Runs a change under the simulation's lock and submits the notifications it caused, in
    /// order with everything else, keeping Apple's error.
    func changeAndNotify(
        _ body: (inout Simulation) throws(ServerAPIErrorAnswer) -> ([String: Any], [SimulatedEvent])
    ) -> APIAnswer {
        var result: APIAnswer = .failure(.generalInternal)
        _ = try? perform { (simulation: inout Simulation) throws(SimulatorError) -> Simulation.Outcome in
            do throws(ServerAPIErrorAnswer) {
                let (answer, events) = try body(&simulation)
                result = .success(answer)
                return Simulation.Outcome(transaction: nil, receiptData: nil, events: events)
            } catch {
                result = .failure(error)
                return Simulation.Outcome(transaction: nil, receiptData: nil, events: [])
            }
        }
        return result
    }
}

/// Apple's refund questions: the consumption answer endpoint.
extension AppStoreSimulator {
    /// `PUT /inApps/v2/transactions/consumption/{transactionId}`: nil is Apple's 202. Apple's
    /// checks, in this order: 4000006 (the id is not digits), a body that is not JSON, 4000138
    /// (customerConsented not true), a deliveryStatus or consumptionPercentage Apple does not
    /// take, 4040010 (unknown here). Each accepted body is kept for `/control/consumption-answers`.
    func consumptionAnswer(
        _ transactionID: String, _ environment: Environment, _ body: [UInt8]
    ) -> ServerAPIErrorAnswer? {
        guard !transactionID.isEmpty, transactionID.utf8.allSatisfy({ (48...57).contains($0) }) else {
            return .invalidTransactionID
        }
        guard let fields = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .generalBadRequest
        }
        guard fields["customerConsented"] as? Bool == true else { return .invalidCustomerConsented }
        let statuses = ["DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM",
                        "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"]
        guard let status = fields["deliveryStatus"] as? String, statuses.contains(status) else {
            return .invalidDeliveryStatus
        }
        if let percentage = fields["consumptionPercentage"] {
            guard let value = (percentage as? NSNumber)?.intValue, (0...100_000).contains(value) else {
                return .invalidConsumptionPercentage
            }
        }
        let known = (try? read { (simulation: Simulation) in
            simulation.transaction(transactionID)?.environment == environment
        }) ?? false
        guard known else { return .transactionIDNotFound }
        let text = String(decoding: body, as: UTF8.self)
        consumptionAnswers.withLock { $0[transactionID, default: []].append(text) }
        return nil
    }
}

/// Mass renewal-date extension.
extension AppStoreSimulator {
    /// `POST /inApps/v1/subscriptions/extend/mass` with `productId`, `extendByDays`,
    /// `extendReasonCode`, `requestIdentifier` and optional `storefrontCountryCodes`.
    func massExtensionAnswer(_ environment: Environment, _ body: [UInt8]) -> APIAnswer {
        guard let fields = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return .failure(.generalBadRequest)
        }
        let identifier = fields["requestIdentifier"] as? String
        return changeAndNotify { (simulation: inout Simulation) throws(ServerAPIErrorAnswer) in
            let events = try simulation.extendAllRenewalDates(
                productID: fields["productId"] as? String,
                extendByDays: (fields["extendByDays"] as? NSNumber)?.intValue,
                reasonCode: (fields["extendReasonCode"] as? NSNumber)?.intValue, requestIdentifier: identifier,
                storefronts: fields["storefrontCountryCodes"] as? [String], environment: environment)
            return (["requestIdentifier": identifier ?? ""], events)
        }
    }

    /// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`.
    func massExtensionStatusAnswer(_ tail: String, _ environment: Environment) -> APIAnswer {
        let parts = tail.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        let found = try? read { (simulation: Simulation) in
            simulation.massExtension(productID: parts[0], requestIdentifier: parts[1])
        }
        guard let record = found else { return .failure(.massExtensionNotFound) }
        return .success([
            "requestIdentifier": parts[1], "complete": true, "completeDate": record.completedAtMs,
            "succeededCount": record.succeeded, "failedCount": record.failed,
        ])
    }
}

/// Refund history.
extension AppStoreSimulator {
    /// `GET /inApps/v2/refund/lookup/{transactionId}`: every refunded transaction (not an
    /// upgrade's cancellation) of the customer who owns the id, in one page; 4040010 when this
    /// environment never issued the id.
    func refundHistoryAnswer(_ transactionID: String, _ environment: Environment) -> APIAnswer {
        let result = try? read { (simulation: Simulation) -> APIAnswer in
            guard let owner = simulation.owners[transactionID], let account = simulation.accounts[owner],
                  account.environment == environment else { return .failure(.transactionIDNotFound) }
            var signed: [String] = []
            let refunded = account.transactions.filter { $0.cancellationDateMs != nil && !$0.isUpgraded }
            for transaction in refunded {
                guard let jws = try? composer.signedTransaction(transaction, at: simulation.nowMs) else {
                    return .failure(.generalInternal)
                }
                signed.append(jws)
            }
            return .success(["signedTransactions": signed, "revision": "refunds-\(signed.count)", "hasMore": false])
        }
        return result ?? .failure(.generalInternal)
    }
}
