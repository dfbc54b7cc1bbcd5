import EntitlementAPI
import ServiceRuntime

/// A JSON value with ordered keys, rendered compactly: `--json` output is for programs,
/// and a fixed key order keeps it diffable.
indirect enum JSONValue {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(Int64)
    case bool(Bool)

    var rendered: String {
        var out = ""
        render(into: &out)
        return out
    }

    private func render(into out: inout String) {
        switch self {
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                JSONValue.string(key).render(into: &out)
                out += ":"
                value.render(into: &out)
            }
            out += "}"
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.render(into: &out)
            }
            out += "]"
        case .string(let text):
            JSONString.append(text, to: &out)
        case .number(let value): out += String(value)
        case .bool(let value): out += value ? "true" : "false"
        }
    }

    /// proto3 JSON writes 64-bit integers as strings (JavaScript numbers lose precision).
    static func int64(_ value: Int64) -> JSONValue { .string(String(value)) }

    /// proto3 JSON writes enums by name; a number this build does not know stays a number.
    static func enumeration<E: RawRepresentable & CustomStringConvertible>(_ value: E) -> JSONValue
        where E.RawValue == Int32 {
        let name = value.description
        return name.contains("(") ? .number(Int64(value.rawValue)) : .string(name)
    }
}

/// The API's messages in proto3 JSON form: lowerCamelCase field names, every field present
/// (defaults included, so scripts need no fallbacks).
enum ProtoJSON {
    static func entitlement(_ e: EntitlementV1.Entitlement) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("productId", .string(e.productID)),
            ("originalTransactionId", .string(e.originalTransactionID)),
            ("state", .enumeration(e.state)),
            ("active", .bool(e.active)),
            ("purchasedAtMs", .int64(e.purchasedAtMs)),
            ("expiresAtMs", .int64(e.expiresAtMs)),
            ("gracePeriodExpiresAtMs", .int64(e.gracePeriodExpiresAtMs)),
            ("willAutoRenew", .bool(e.willAutoRenew)),
            ("isTrialPeriod", .bool(e.isTrialPeriod)),
            ("isInIntroOfferPeriod", .bool(e.isInIntroOfferPeriod)),
            ("productType", .enumeration(e.productType)),
            ("subscriptionGroupId", .string(e.subscriptionGroupID)),
            ("environment", .enumeration(e.environment)),
            ("latestTransactionId", .string(e.latestTransactionID)),
            ("entitlementId", .string(e.entitlementID)),
            ("appAccountToken", .string(e.appAccountToken)),
        ]
        // Only on grants, so every other entitlement's JSON stays as it was.
        if !e.grantID.isEmpty { fields.append(("grantId", .string(e.grantID))) }
        return .object(fields)
    }

    static func check(_ r: EntitlementV1.CheckEntitlementResponse) -> JSONValue {
        .object([("active", .bool(r.active)), ("entitlements", .array(r.entitlements.map(entitlement))),
                 ("evaluatedAtMs", .int64(r.evaluatedAtMs))])
    }

    static func submit(_ r: EntitlementV1.SubmitReceiptResponse) -> JSONValue {
        .object([
            ("environment", .enumeration(r.environment)),
            ("entitlements", .array(r.entitlements.map(entitlement))),
            ("newTransactions", .number(Int64(r.newTransactions))), ("appleStatus", .number(Int64(r.appleStatus))),
        ])
    }

    static func event(_ e: EntitlementV1.HistoryEvent) -> JSONValue {
        .object([
            ("eventId", .string(e.eventID)),
            ("type", .enumeration(e.type)),
            ("occurredAtMs", .int64(e.occurredAtMs)),
            ("productId", .string(e.productID)),
            ("transactionId", .string(e.transactionID)),
            ("originalTransactionId", .string(e.originalTransactionID)),
            ("expiresAtMs", .int64(e.expiresAtMs)),
            ("environment", .enumeration(e.environment)),
            ("source", .enumeration(e.source)),
            ("appleNotificationType", .string(e.appleNotificationType)),
            ("actor", .string(e.actor)),
            ("reason", .string(e.reason)),
        ])
    }

    static func history(_ r: EntitlementV1.ListHistoryResponse) -> JSONValue {
        .object([("events", .array(r.events.map(event))), ("nextPageToken", .string(r.nextPageToken))])
    }

    static func health(_ r: GRPCHealthV1.HealthCheckResponse) -> JSONValue {
        .object([("status", .enumeration(r.status))])
    }
}
