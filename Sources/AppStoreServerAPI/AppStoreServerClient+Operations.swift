import Entitlements
import Foundation

extension AppStoreServerClient {
    /// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}` with `extendByDays`,
    /// `extendReasonCode` and `requestIdentifier`: Apple moves the subscription's renewal date
    /// `extendByDays` later and answers with the new date (`effectiveDate`).
    ///
    /// `requestIdentifier` is Apple's idempotency key: the same one sent again (a retry after a
    /// lost answer) extends nothing more, so retrying this PUT is safe. Apple refuses with 403
    /// 4030004 (the subscription cannot be extended: expired, in billing retry, ...) and 4030005
    /// (two extensions within a year already), both ``ServerAPIError/Code/refused``; 400 for days
    /// outside 1...90 (4000009), a reason code outside 0...3 (4000010) or an identifier that is
    /// not a UUID (4000011), all ``ServerAPIError/Code/invalidRequest``.
    public func extendRenewalDate(
        originalTransactionID: String, extendByDays: Int, reasonCode: Int, requestIdentifier: String,
        environment: Environment? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws -> RenewalExtension {
        let deadline = deadline ?? defaultDeadline()
        let path = "inApps/v1/subscriptions/extend/" + Self.pathSegment(originalTransactionID)
        // Numbers and a UUID: nothing JSON escapes.
        let body = Array(("{\"extendByDays\":\(extendByDays),\"extendReasonCode\":\(reasonCode),"
                          + "\"requestIdentifier\":\"\(Self.jsonSafe(requestIdentifier))\"}").utf8)
        let answer = try await inEitherEnvironment(first: environment,
                                                   what: "original transaction id \(originalTransactionID)") {
            environment in
            try await request(.extendRenewalDate, environment: environment, method: "PUT", path: path, body: body,
                              deadline: deadline) { try ServerAPIBody.renewalExtension($0, environment: environment) }
        }
        return answer.value
    }

    /// `GET /inApps/v1/lookup/{orderId}`: the signed transactions of the order on a customer's
    /// invoice (`status` 0), or none (`status` 1: Apple knows no such order). Production, then
    /// sandbox when production does not know the order.
    public func lookUpOrder(orderID: String, deadline: ContinuousClock.Instant? = nil) async throws -> OrderLookup {
        let deadline = deadline ?? defaultDeadline()
        let path = "inApps/v1/lookup/" + Self.pathSegment(orderID)
        var last = OrderLookup(environment: .production, found: false, signedTransactions: [])
        for environment in [Environment.production, .sandbox] {
            let answer = try await request(.orderLookup, environment: environment, method: "GET", path: path,
                                           deadline: deadline) {
                try ServerAPIBody.orderLookup($0, environment: environment)
            }
            guard case .value(let lookup) = answer else { continue }
            if lookup.found { return lookup }
            last = lookup
        }
        return last
    }

    /// `PUT /inApps/v2/transactions/consumption/{transactionId}`: the answer to Apple's
    /// CONSUMPTION_REQUEST (Apple: 202, no body). `body` is the JSON object `consumptionBody`
    /// makes. Sent only to `environment`, the one Apple asked from. Apple's 400 (customerConsented
    /// false, a bad field) is ``ServerAPIError/Code/invalidRequest``: never worth a retry.
    public func sendConsumption(transactionID: String, body: [UInt8], environment: Environment,
                                deadline: ContinuousClock.Instant? = nil) async throws {
        let deadline = deadline ?? defaultDeadline()
        let path = "inApps/v2/transactions/consumption/" + Self.pathSegment(transactionID)
        try await request(.consumption, environment: environment, method: "PUT", path: path, body: body,
                          deadline: deadline) { _ in () }
            .value(in: environment, orNotFound: "does not know transaction id \(transactionID)")
    }

    /// The consumption answer's JSON: Apple's field names; `refundPreference` left out when nil.
    public static func consumptionBody(customerConsented: Bool, consumptionPercentage: Int, deliveryStatus: String,
                                       sampleContentProvided: Bool, refundPreference: String?) -> [UInt8] {
        var fields = ["\"customerConsented\":\(customerConsented)",
                      "\"consumptionPercentage\":\(consumptionPercentage)",
                      "\"deliveryStatus\":\"\(jsonSafe(deliveryStatus))\"",
                      "\"sampleContentProvided\":\(sampleContentProvided)"]
        if let refundPreference { fields.append("\"refundPreference\":\"\(jsonSafe(refundPreference))\"") }
        return Array(("{" + fields.joined(separator: ",") + "}").utf8)
    }

    /// Apple's identifiers are UUIDs, which need no escaping; anything else is made harmless
    /// so it cannot break out of its JSON string (Apple then refuses it as not a UUID).
    static func jsonSafe(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\"" && $0 != "\\" && $0.value >= 0x20 }.map(Character.init))
    }
}

/// Apple's answer to an extension of one subscription's renewal date.
public struct RenewalExtension: Sendable, Equatable {
    /// The environment that knew the subscription.
    public var environment: Environment
    public var originalTransactionID: String
    public var webOrderLineItemID: String?
    /// The new renewal date (Unix ms): the subscription's expiry from now on.
    public var effectiveDateMs: Int64
    /// Apple's `success`; false means Apple did not extend.
    public var success: Bool
}

/// `GET /inApps/v1/lookup/{orderId}`.
public struct OrderLookup: Sendable, Equatable {
    public var environment: Environment
    /// Apple's `status` 0: the order is known.
    public var found: Bool
    /// JWS transactions, unverified: verify each before using it.
    public var signedTransactions: [String]
}

extension ServerAPIBody {
    static func renewalExtension(_ bytes: [UInt8], environment: Environment) throws -> RenewalExtension {
        let object = try object(bytes)
        let id = object["originalTransactionId"]
        guard let effective = integer(object["effectiveDate"]) else {
            throw Unreadable(description: "extension answer without effectiveDate")
        }
        let lineItem = object["webOrderLineItemId"]
        return RenewalExtension(
            environment: environment, originalTransactionID: id as? String ?? integer(id).map(String.init) ?? "",
            webOrderLineItemID: lineItem as? String ?? integer(lineItem).map(String.init),
            effectiveDateMs: Int64(effective), success: object["success"] as? Bool ?? false)
    }

    static func orderLookup(_ bytes: [UInt8], environment: Environment) throws -> OrderLookup {
        let object = try object(bytes)
        guard let status = integer(object["status"]) else {
            throw Unreadable(description: "order lookup answer without status")
        }
        return OrderLookup(environment: environment, found: status == 0,
                           signedTransactions: try strings(object["signedTransactions"], "signedTransactions"))
    }
}
