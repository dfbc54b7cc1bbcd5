import AppStoreServerAPI
import Entitlements
import Foundation
import HTTPCore
import HTTPServer

/// Mass renewal-date extension after an outage: `entitlementctl extend-all` starts one and
/// follows it. Apple extends in the background and sends RENEWAL_EXTENDED per subscription,
/// which moves each user's expiry here as the notifications arrive.
extension Daemon {
    static let massExtensionPrerequisite = "mass extension needs the App Store Server API: start entitlementd with "
        + "--app-store-key, --app-store-key-id, --app-store-issuer-id and --bundle-id"

    /// `POST /admin/apple/extend-all` with `{"product_id", "days", "reason_code", "storefronts":
    /// ["USA"], "environment", "request_id"?}`: 200 `{"request_id", ...}` once Apple accepted it.
    func massExtensionStartHandler(_ client: AppStoreServerClient?) -> HTTPRouter.Handler {
        { [logger] request, writer in
            guard let client else {
                return writer.respond(Self.adminJSON(412, ["error": Self.massExtensionPrerequisite]))
            }
            guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
                return writer.respond(Self.adminJSON(400, ["error": "the body must be a JSON object: product_id, "
                                                            + "days, reason_code, storefronts, environment"]))
            }
            let productID = body["product_id"] as? String ?? ""
            let days = (body["days"] as? NSNumber)?.intValue ?? 0
            let reasonCode = (body["reason_code"] as? NSNumber)?.intValue ?? 0
            let storefronts = body["storefronts"] as? [String] ?? []
            let requestID = (body["request_id"] as? String).flatMap(AppAccountToken.canonical)
                ?? AppAccountToken.random()
            guard let environment = Environment(rawValue: body["environment"] as? String ?? "production") else {
                return writer.respond(Self.adminJSON(400, ["error": "environment must be production or sandbox"]))
            }
            if let refusal = Self.massExtensionRefusal(productID: productID, days: days, reasonCode: reasonCode,
                                                       storefronts: storefronts) {
                return writer.respond(Self.adminJSON(400, ["error": refusal]))
            }
            Task {
                do {
                    try await client.extendAllRenewalDates(
                        productID: productID, extendByDays: days, reasonCode: reasonCode, requestIdentifier: requestID,
                        storefronts: storefronts, environment: environment)
                    logger.info("mass renewal-date extension requested", [
                        ("product_id", productID), ("days", String(days)), ("reason_code", String(reasonCode)),
                        ("storefronts", storefronts.joined(separator: ",")), ("request_id", requestID),
                        ("environment", environment.rawValue)])
                    writer.respond(Self.adminJSON(200, [
                        "request_id": requestID, "product_id": productID, "environment": environment.rawValue,
                    ]))
                } catch let error as ServerAPIError {
                    writer.respond(Self.adminJSON(502, ["error": error.message]))
                } catch {
                    writer.respond(Self.adminJSON(502, ["error": "asking Apple for the mass extension failed"]))
                }
            }
        }
    }

    /// `GET /admin/apple/extend-all?product_id=P&request_id=R&environment=E`: Apple's status.
    func massExtensionStatusHandler(_ client: AppStoreServerClient?) -> HTTPRouter.Handler {
        { request, writer in
            guard let client else {
                return writer.respond(Self.adminJSON(412, ["error": Self.massExtensionPrerequisite]))
            }
            let items = URLComponents(string: request.path)?.queryItems ?? []
            let value = { (name: String) in items.first { $0.name == name }?.value ?? "" }
            guard !value("product_id").isEmpty, !value("request_id").isEmpty,
                  let environment = Environment(rawValue: value("environment").isEmpty ? "production"
                                                : value("environment")) else {
                return writer.respond(Self.adminJSON(400, [
                    "error": "send ?product_id=P&request_id=R (and environment=sandbox for sandbox)"]))
            }
            Task {
                do {
                    let status = try await client.massExtensionStatus(
                        productID: value("product_id"), requestIdentifier: value("request_id"),
                        environment: environment)
                    var object: [String: Any] = [
                        "request_id": status.requestIdentifier, "complete": status.complete,
                        "succeeded_count": status.succeededCount, "failed_count": status.failedCount,
                    ]
                    object["complete_date_ms"] = status.completeDateMs
                    writer.respond(Self.adminJSON(200, object))
                } catch let error as ServerAPIError {
                    writer.respond(Self.adminJSON(error.code == .notFound ? 404 : 502, ["error": error.message]))
                } catch {
                    writer.respond(Self.adminJSON(502, ["error": "asking Apple for the mass extension failed"]))
                }
            }
        }
    }

    /// What Apple would refuse, said before Apple is asked.
    static func massExtensionRefusal(
        productID: String, days: Int, reasonCode: Int, storefronts: [String]
    ) -> String? {
        if productID.isEmpty { return "product_id is required: the auto-renewable subscription to extend" }
        if let refusal = RenewalExtensionRules.refusal(originalTransactionID: "1", extendByDays: days,
                                                       reasonCode: reasonCode, requestID: "") {
            return refusal.replacingOccurrences(of: "extend_by_days", with: "days")
        }
        if let bad = storefronts.first(where: { $0.count != 3 || !$0.allSatisfy { $0.isUppercase && $0.isLetter } }) {
            return "storefronts are ISO 3166-1 alpha-3 codes such as USA or CAN; '\(bad)' is not"
        }
        return nil
    }
}
