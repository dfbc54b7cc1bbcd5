import Entitlements
import Foundation
import HTTPCore

extension AppStoreSimulator {
    /// Apple's verifyReceipt paths, then the control API (``service()`` adds the Server API).
    public func router() -> HTTPRouter {
        var router = HTTPRouter()
        for (path, environment) in [
            ("/production/verifyReceipt", Environment.production), ("/sandbox/verifyReceipt", .sandbox),
        ] {
            router.add("POST", path) { [self] request, writer in
                let body = (try? read { $0.verifyReceipt(body: request.body, endpoint: environment) }) ?? []
                writer.respond(HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: body))
            }
            // Apple answers a request that is not a POST with status 21000, still as HTTP 200.
            router.add("GET", path) { _, writer in
                writer.respond(.text(200, "{\"status\":21000}", contentType: "application/json"))
            }
        }
        addControlRoutes(to: &router)
        addFaultControls(to: &router)
        router.add("GET", "/control/root-ca") { [rootPEM] _, writer in
            writer.respond(.text(200, rootPEM, contentType: "application/x-pem-file"))
        }
        router.add("GET", "/control/clock") { [self] _, writer in
            answer(writer) { () throws(SimulatorError) in
                try read { simulation in
                    ["sim_time_ms": simulation.nowMs, "offset_ms": simulation.nowMs - simulation.wallMs]
                }
            }
        }
        router.add("GET", "/control/deliveries") { [delivery] _, writer in
            let recent = (delivery?.recentDeliveries ?? []).map { record -> [String: Any] in
                var entry: [String: Any] = ["notification": record.label, "notification_uuid": record.notificationUUID,
                                            "duplicate": record.isDuplicate]
                entry["http_status"] = record.httpStatus ?? NSNull()
                if record.isDropped { entry["dropped"] = true }
                return entry
            }
            writer.respond(Self.json(200, ["pending": delivery?.pending ?? 0, "recent": recent]))
        }
        return router
    }

    private func addControlRoutes(to router: inout HTTPRouter) {
        let scale = periodScale
        control(&router, "purchase") { (request: ControlRequest) throws(SimulatorError) -> Action in
            let offer: PurchaseRequest.Offer
            if try request.bool("trial") == true {
                offer = .freeTrial
            } else if let text = try request.string("offer") {
                guard let parsed = PurchaseRequest.Offer(rawValue: text) else {
                    throw SimulatorError(.invalidArgument, "offer must be trial, intro or none")
                }
                offer = parsed
            } else {
                offer = .none
            }
            let typeText = try request.string("type") ?? "auto_renewable"
            guard let type = ProductType(rawValue: typeText) else {
                throw SimulatorError(
                    .invalidArgument, "type must be auto_renewable, non_consumable, consumable or non_renewing")
            }
            let environmentText = try request.string("environment") ?? "production"
            guard let environment = Environment(rawValue: environmentText.lowercased()) else {
                throw SimulatorError(.invalidArgument, "environment must be production or sandbox")
            }
            // StoreKit 2 takes a UUID value, so a purchase can carry nothing else.
            let appAccountToken = try request.string("app_account_token")
            if let appAccountToken, UUID(uuidString: appAccountToken) == nil {
                throw SimulatorError(.invalidArgument, "app_account_token must be a UUID")
            }
            let purchase = PurchaseRequest(
                productID: try request.requiredString("product_id"), type: type,
                periodMs: try request.durationMs("period", scale: scale), offer: offer,
                userToken: try request.string("user_token"), appAccountToken: appAccountToken,
                environment: environment)
            return { (simulation: inout Simulation) throws(SimulatorError) in try simulation.purchase(purchase) }
        }
        control(&router, "renew", id: "original_transaction_id") { simulation, id throws(SimulatorError) in
            try simulation.renew(originalTransactionID: id)
        }
        control(&router, "fail-billing") { (request: ControlRequest) throws(SimulatorError) -> Action in
            let id = try request.requiredString("original_transaction_id")
            let grace = try request.durationMs("grace", scale: scale)
            let deferred = try request.bool("defer") ?? false
            return { (simulation: inout Simulation) throws(SimulatorError) in
                try simulation.failBilling(originalTransactionID: id, graceMs: grace, deferred: deferred)
            }
        }
        control(&router, "recover", id: "original_transaction_id") { simulation, id throws(SimulatorError) in
            try simulation.recoverBilling(originalTransactionID: id)
        }
        control(&router, "auto-renew") { (request: ControlRequest) throws(SimulatorError) -> Action in
            let id = try request.requiredString("original_transaction_id")
            guard let enabled = try request.bool("enabled") else {
                throw SimulatorError(.invalidArgument, "enabled is required")
            }
            return { (simulation: inout Simulation) throws(SimulatorError) in
                try simulation.setAutoRenew(originalTransactionID: id, enabled: enabled)
            }
        }
        control(&router, "change-product") { (request: ControlRequest) throws(SimulatorError) -> Action in
            let id = try request.requiredString("original_transaction_id")
            let product = try request.requiredString("product_id")
            let downgrade = try request.bool("downgrade") ?? false
            return { (simulation: inout Simulation) throws(SimulatorError) in
                try simulation.changeProduct(originalTransactionID: id, to: product, downgrade: downgrade)
            }
        }
        control(&router, "refund", id: "transaction_id") { simulation, id throws(SimulatorError) in
            try simulation.refund(transactionID: id)
        }
        // {"transaction_id", "reason": Apple's consumptionRequestReason, "ago": "13h"}.
        control(&router, "refund-request") { (request: ControlRequest) throws(SimulatorError) -> Action in
            let id = try request.requiredString("transaction_id")
            let reason = try request.string("reason") ?? "UNINTENDED_PURCHASE"
            let ago = try request.durationMs("ago") ?? 0
            return { (simulation: inout Simulation) throws(SimulatorError) in
                try simulation.requestRefund(transactionID: id, reason: reason, agoMs: ago)
            }
        }
        control(&router, "decline-refund", id: "transaction_id") { simulation, id throws(SimulatorError) in
            try simulation.declineRefund(transactionID: id)
        }
        control(&router, "reverse-refund", id: "transaction_id") { simulation, id throws(SimulatorError) in
            try simulation.reverseRefund(transactionID: id)
        }
        control(&router, "expire") { (request: ControlRequest) throws(SimulatorError) -> Action in
            let id = try request.requiredString("original_transaction_id")
            let deferred = try request.bool("defer") ?? false
            return { (simulation: inout Simulation) throws(SimulatorError) in
                try simulation.expire(originalTransactionID: id, deferred: deferred)
            }
        }
        control(&router, "advance") { (request: ControlRequest) throws(SimulatorError) -> Action in
            guard let by = try request.durationMs("by") else {
                throw SimulatorError(.invalidArgument, "by (e.g. \"7d\") or by_ms is required")
            }
            return { (simulation: inout Simulation) throws(SimulatorError) in try simulation.advance(byMs: by) }
        }
        router.add("POST", "/control/receipt") { [self] request, writer in
            answer(writer) { () throws(SimulatorError) in
                let fields = try ControlRequest(request.body)
                // `??` would erase the typed throw through its autoclosure.
                if let id = try fields.string("transaction_id") { return try receiptAnswer(transactionID: id) }
                return try receiptAnswer(transactionID: try fields.requiredString("original_transaction_id"))
            }
        }
    }
}
