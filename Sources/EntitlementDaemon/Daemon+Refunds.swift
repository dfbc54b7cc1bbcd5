import AppStoreServerAPI
import EntitlementService
import Foundation
import HTTPCore
import HTTPServer

extension Daemon {
    /// `GET /admin/refunds?user_id=U`: the user's refunds from Apple's refund history
    /// (`entitlementctl refunds USER`). 412 without the Server API, 502 when Apple could not
    /// answer or its signed data failed verification.
    func refundsHandler(_ lookup: RefundLookup) -> HTTPRouter.Handler {
        { request, writer in
            guard lookup.isConfigured else {
                return writer.respond(Self.adminJSON(412, [
                    "error": "refund history needs the App Store Server API: start entitlementd with --app-store-key, "
                        + "--app-store-key-id, --app-store-issuer-id and --bundle-id"]))
            }
            let items = URLComponents(string: request.path)?.queryItems ?? []
            guard let user = items.first(where: { $0.name == "user_id" })?.value, !user.isEmpty else {
                return writer.respond(Self.adminJSON(400, ["error": "send ?user_id=USER"]))
            }
            Task {
                do {
                    let refunds = try await lookup.refunds(userID: user)
                    writer.respond(Self.adminJSON(200, ["user_id": user, "refunds": refunds.map { transaction in
                        var row: [String: Any] = [
                            "transaction_id": transaction.transactionID,
                            "original_transaction_id": transaction.originalTransactionID,
                            "product_id": transaction.productID, "purchase_date_ms": transaction.purchaseDateMs,
                            "environment": transaction.environment.rawValue,
                        ]
                        row["refund_date_ms"] = transaction.cancellationDateMs
                        return row
                    }]))
                } catch let error as ServerAPIError {
                    writer.respond(Self.adminJSON(error.code == .notFound ? 404 : 502, ["error": error.message]))
                } catch let error as ServerAPIDataRejected {
                    writer.respond(Self.adminJSON(502, ["error": "\(error)"]))
                } catch {
                    writer.respond(Self.adminJSON(503, ["error": "cannot read the user's chains; retry later"]))
                }
            }
        }
    }
}
