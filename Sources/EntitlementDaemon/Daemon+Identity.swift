import EntitlementPorts
import EntitlementService
import Foundation
import HTTPCore
import ServiceRuntime

/// App account tokens at the edges: telling Apple the token of a purchase a device's proof bound
/// to a user, and the chain-owners admin operation support uses to see a purchase passed
/// between accounts (`entitlementctl owners`).
extension Daemon {
    /// What SubmitReceipt calls (after answering) for a token-less chain a receipt or signed
    /// transaction bound to a user: Apple's Set App Account Token with the user's token, so
    /// Apple signs it into the chain's later renewals and notifications and no other account
    /// can claim the chain from then on. Without the Server API there is no one to tell.
    /// Best effort: a failure is logged and changes nothing (the chain stays the user's).
    func accountTokenSetter(serverAPI: ServerAPIPurchases?, tokens: any AccountTokens)
        -> (@Sendable (_ originalTransactionID: String, _ userID: String) async -> Void)? {
        guard let serverAPI else { return nil }
        let logger = self.logger
        return { chain, userID in
            do {
                let token = try await tokens.appAccountToken(userID: userID)
                try await serverAPI.setAppAccountToken(
                    originalTransactionID: chain, token: token,
                    deadline: ContinuousClock.now.advanced(by: .seconds(30)))
                logger.info("app account token set at Apple", [("original_transaction_id", chain)])
            } catch {
                logger.warning("setting the app account token at Apple failed; the chain stays the user's, "
                               + "but its notifications carry no token until it is set",
                               [("original_transaction_id", chain), ("error", "\(error)")])
            }
        }
    }

    /// `GET /admin/owners?original_transaction_id=ID`: who owned the chain and when, oldest first.
    func addOwnersOperation(_ tokens: any AccountTokens, to routes: inout HTTPRouter) {
        routes.add("GET", "/admin/owners") { request, writer in
            guard let chain = OwnersJSON.chainID(query: request.path), ReceiptSubmission.isTransactionID(chain) else {
                writer.respond(.json(400, WebhookAdminJSON.error(
                    "send ?original_transaction_id=ID with an App Store original transaction id (digits)")))
                return
            }
            do {
                writer.respond(.json(200, OwnersJSON.owners(try tokens.owners(originalTransactionID: chain),
                                                            chain: chain)))
            } catch {
                writer.respond(.json(503, WebhookAdminJSON.error("cannot read the chain's owners; retry later")))
            }
        }
    }
}

/// The JSON of the owners operation.
enum OwnersJSON {
    static func chainID(query path: String) -> String? {
        guard let components = URLComponents(string: path) else { return nil }
        return components.queryItems?.first { $0.name == "original_transaction_id" }?.value
    }

    static func owners(_ owners: [ChainOwnership], chain: String) -> String {
        let list: [[String: Any]] = owners.map { owner in
            var object: [String: Any] = ["user_id": owner.userID]
            if let since = owner.sinceMs { object["since_ms"] = since }
            if let until = owner.untilMs { object["until_ms"] = until }
            return object
        }
        let object: [String: Any] = ["original_transaction_id": chain, "owners": list]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
