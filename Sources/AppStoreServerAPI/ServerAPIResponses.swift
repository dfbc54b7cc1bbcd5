import Entitlements
import Foundation

/// One page of `GET /inApps/v2/history/{transactionId}`.
public struct HistoryPage: Sendable, Equatable {
    public var signedTransactions: [String]
    /// Ask again with this to get the next page (and, later, only what is newer).
    public var revision: String
    public var hasMore: Bool
}

/// The whole transaction history of one id, every page followed.
public struct TransactionHistory: Sendable, Equatable {
    /// The environment that answered (production, or sandbox after 4040010/4040005).
    public var environment: Environment
    /// JWS transactions, unverified: verify each before using it.
    public var signedTransactions: [String]
    /// The last page's revision: pass it next time to get only what is new.
    public var revision: String
}

/// `GET /inApps/v1/subscriptions/{transactionId}`: the status of every subscription group.
public struct SubscriptionStatuses: Sendable, Equatable {
    public struct LastTransaction: Sendable, Equatable {
        /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        public var status: Int
        public var originalTransactionID: String
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?
    }

    public var environment: Environment
    /// Every group's `lastTransactions`, flattened (the group id does not matter to us).
    public var lastTransactions: [LastTransaction]
}

/// `GET /inApps/v1/transactions/{transactionId}`.
public struct TransactionInfo: Sendable, Equatable {
    public var environment: Environment
    public var signedTransactionInfo: String
}

/// One page of `POST /inApps/v1/notifications/history`.
public struct NotificationHistoryPage: Sendable, Equatable {
    /// Each notification's `signedPayload`, unverified: ingest them as webhook bodies are.
    public var signedPayloads: [String]
    /// Pass it to get the next page; nil on the last page.
    public var paginationToken: String?
    public var hasMore: Bool

    public init(signedPayloads: [String], paginationToken: String?, hasMore: Bool) {
        self.signedPayloads = signedPayloads
        self.paginationToken = paginationToken
        self.hasMore = hasMore
    }
}

/// Reads Apple's JSON bodies. Unknown fields are ignored (Apple adds them); a missing field we
/// need throws, which the client treats as a passing failure, since Apple does not send those.
enum ServerAPIBody {
    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw Unreadable(description: "the body is not a JSON object")
        }
        return object
    }

    /// Apple's error body `{"errorCode": N, "errorMessage": "..."}`; nil when absent or not JSON.
    static func error(_ bytes: [UInt8]) -> (code: Int?, message: String?) {
        guard !bytes.isEmpty, let object = try? object(bytes) else { return (nil, nil) }
        return (integer(object["errorCode"]), object["errorMessage"] as? String)
    }

    static func historyPage(_ bytes: [UInt8]) throws -> HistoryPage {
        let object = try object(bytes)
        guard let revision = object["revision"] as? String else {
            throw Unreadable(description: "history page without revision")
        }
        return HistoryPage(signedTransactions: try strings(object["signedTransactions"], "signedTransactions"),
                           revision: revision, hasMore: object["hasMore"] as? Bool ?? false)
    }

    static func statuses(_ bytes: [UInt8], environment: Environment) throws -> SubscriptionStatuses {
        let object = try object(bytes)
        var last: [SubscriptionStatuses.LastTransaction] = []
        for group in object["data"] as? [[String: Any]] ?? [] {
            for entry in group["lastTransactions"] as? [[String: Any]] ?? [] {
                let id = entry["originalTransactionId"]
                guard let original = id as? String ?? integer(id).map(String.init)
                else { throw Unreadable(description: "lastTransactions entry without originalTransactionId") }
                last.append(.init(status: integer(entry["status"]) ?? 0, originalTransactionID: original,
                                  signedTransactionInfo: entry["signedTransactionInfo"] as? String,
                                  signedRenewalInfo: entry["signedRenewalInfo"] as? String))
            }
        }
        return SubscriptionStatuses(environment: environment, lastTransactions: last)
    }

    static func transactionInfo(_ bytes: [UInt8], environment: Environment) throws -> TransactionInfo {
        guard let signed = try object(bytes)["signedTransactionInfo"] as? String else {
            throw Unreadable(description: "transaction info without signedTransactionInfo")
        }
        return TransactionInfo(environment: environment, signedTransactionInfo: signed)
    }

    static func notificationHistoryPage(_ bytes: [UInt8]) throws -> NotificationHistoryPage {
        let object = try object(bytes)
        var payloads: [String] = []
        for item in object["notificationHistory"] as? [[String: Any]] ?? [] {
            guard let payload = item["signedPayload"] as? String else {
                throw Unreadable(description: "notificationHistory entry without signedPayload")
            }
            payloads.append(payload)
        }
        let token = (object["paginationToken"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        return NotificationHistoryPage(signedPayloads: payloads, paginationToken: token,
                                       hasMore: object["hasMore"] as? Bool ?? false)
    }

    static func strings(_ value: Any?, _ name: String) throws -> [String] {
        guard let value else { return [] }
        guard let strings = value as? [String] else { throw Unreadable(description: "\(name) is not a list of JWS") }
        return strings
    }

    static func integer(_ value: Any?) -> Int? {
        if let number = value as? NSNumber { return number.intValue }
        if let text = value as? String { return Int(text) }
        return nil
    }
}
