import AppStore
import Entitlements
import Foundation
import HTTPCore

extension AppStoreSimulator {
    typealias Action = (inout Simulation) throws(SimulatorError) -> Simulation.Outcome

    /// Registers `POST /control/<name>`: `parse` reads the body into an action, which runs
    /// under the simulation's lock; the answer describes its outcome.
    func control(
        _ router: inout HTTPRouter, _ name: String,
        _ parse: @escaping @Sendable (ControlRequest) throws(SimulatorError) -> Action
    ) {
        router.add("POST", "/control/\(name)") { [self] request, writer in
            answer(writer) { () throws(SimulatorError) in
                let action = try parse(try ControlRequest(request.body))
                return outcomeAnswer(try perform(action))
            }
        }
    }

    /// Registers a control whose request is one id, read from `field`, and nothing else.
    func control(
        _ router: inout HTTPRouter, _ name: String, id field: String,
        _ change: @escaping @Sendable (inout Simulation, String) throws(SimulatorError) -> Simulation.Outcome
    ) {
        control(&router, name) { (request: ControlRequest) throws(SimulatorError) -> Action in
            let id = try request.requiredString(field)
            return { (simulation: inout Simulation) throws(SimulatorError) in try change(&simulation, id) }
        }
    }

    /// Responds with `body()` as JSON, or with the error's status and message.
    func answer(_ writer: any HTTPResponseWriter, _ body: () throws(SimulatorError) -> [String: Any]) {
        do {
            writer.respond(Self.json(200, try body()))
        } catch {
            writer.respond(Self.json(error.httpStatus, ["error": error.code.description, "message": error.message]))
        }
    }

    static func json(_ status: Int, _ object: [String: Any]) -> HTTPResponse {
        let data =
            (try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(data) + [0x0A])
    }

    /// What an action did: the transaction (with its StoreKit 2 signed form, for
    /// SubmitReceipt's `signed_transaction`), the receipt to submit, and each notification.
    func outcomeAnswer(_ performed: Performed) -> [String: Any] {
        var answer: [String: Any] = ["sim_time_ms": performed.nowMs]
        if let transaction = performed.outcome.transaction {
            answer.merge(Self.describe(transaction)) { _, new in new }
        }
        answer["receipt_data"] = performed.outcome.receiptData
        answer["signed_transaction"] = performed.signedTransaction
        answer["notifications"] = performed.outcome.events.map { event -> [String: Any] in
            var entry: [String: Any] = [
                "notification_type": event.notificationType, "notification_uuid": event.notificationUUID,
                "signed_date_ms": event.signedDateMs, "transaction_id": event.transaction.transactionID,
            ]
            entry["subtype"] = event.subtype
            entry["v1_notification_type"] = event.v1NotificationType
            entry["status"] = event.status
            return entry
        }
        return answer
    }

    /// `POST /control/receipt`: the customer's latest receipt and the chain as it stands.
    func receiptAnswer(transactionID: String) throws(SimulatorError) -> [String: Any] {
        let (snapshot, now) = try read { (simulation: Simulation) throws(SimulatorError) in
            (try simulation.receiptSnapshot(transactionID: transactionID), simulation.nowMs)
        }
        var answer: [String: Any] = ["sim_time_ms": now, "receipt_data": snapshot.receiptData,
                                     "transactions": snapshot.chain.map(Self.describe)]
        if let latest = snapshot.chain.last {
            answer["original_transaction_id"] = latest.originalTransactionID
            answer["signed_transaction"] = try? composer.signedTransaction(latest, at: now)
        }
        if let renewal = snapshot.renewal {
            answer["auto_renew_status"] = renewal.autoRenewStatus
            answer["auto_renew_product_id"] = renewal.autoRenewProductID
            answer["is_in_billing_retry_period"] = renewal.isInBillingRetryPeriod
            answer["grace_period_expires_date_ms"] = renewal.gracePeriodExpiresDateMs
            answer["expiration_intent"] = renewal.expirationIntent
        }
        answer["status"] = snapshot.status
        return answer
    }

    static func describe(_ transaction: Transaction) -> [String: Any] {
        var fields: [String: Any] = [
            "transaction_id": transaction.transactionID,
            "original_transaction_id": transaction.originalTransactionID,
            "product_id": transaction.productID,
            "purchase_date_ms": transaction.purchaseDateMs,
            "environment": transaction.environment.appleName,
            "order_id": Simulation.orderID(of: transaction.transactionID),
        ]
        fields["expires_date_ms"] = transaction.expiresDateMs
        fields["cancellation_date_ms"] = transaction.cancellationDateMs
        fields["type"] = transaction.declaredProductType?.rawValue
        if transaction.isUpgraded { fields["is_upgraded"] = true }
        if transaction.isTrialPeriod { fields["is_trial_period"] = true }
        if transaction.isInIntroOfferPeriod { fields["is_in_intro_offer_period"] = true }
        return fields
    }
}
