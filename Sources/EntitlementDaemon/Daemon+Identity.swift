import EntitlementPorts
import EntitlementService
import Foundation
import HTTPCore
import ServiceRuntime

/// App account tokens at the edges: the chain-owners admin operation support uses to see a
/// purchase passed between accounts (`entitlementctl owners`).
extension Daemon {
    /// `GET /admin/owners?original_transaction_id=ID`: who owned the chain and when, oldest first.
    func addOwnersOperation(_ routes: inout HTTPRouter) {
        let tokens = accountTokens
        routes.add("GET", "/admin/owners") { request, writer in
            guard let chain = OwnersJSON.chainID(query: request.path), ReceiptChainID.isValid(chain) else {
                writer.respond(.json(400, WebhookAdminJSON.error(
                    "send ?original_transaction_id=ID with an App Store original transaction id (digits)")))
                return
            }
            guard let tokens else {
                writer.respond(.json(503, WebhookAdminJSON.error("the store is not open yet; retry")))
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

/// Apple's transaction ids are decimal digits; anything else is refused before a read.
enum ReceiptChainID {
    static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 32 && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
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
