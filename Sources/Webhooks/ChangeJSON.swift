import EntitlementPorts
import Entitlements
import ServiceRuntime

/// The canonical proto3 JSON of an `entitlement.v1.EntitlementChange`: the webhook body.
///
/// Written by hand for these two messages rather than through a general JSON encoder, because
/// the proto3 JSON mapping is what receivers parse with their protobuf library
/// (`JsonFormat.parser()`, `json_format.Parse`, `protojson.Unmarshal`): lowerCamelCase field
/// names, int64 as decimal strings (JavaScript numbers lose precision above 2^53), enums by
/// their proto name, fields at their default value (0, "", false, UNSPECIFIED) left out, fields
/// in field-number order. Tests compare it with Python's `json_format` on the same message.
public enum ChangeJSON {
    /// The body for `change` with `cursor` (the opaque cursor a watcher would see).
    public static func body(_ change: EntitlementChange, cursor: String) -> String {
        var object = JSONObjectWriter()
        object.string("cursor", cursor)
        object.string("changeId", change.changeID)
        object.string("userId", change.userID)
        object.raw("entitlement", entitlement(change.entitlement))
        if let previous = change.previousState { object.enumName("previousState", stateName(previous)) }
        object.int64("occurredAtMs", change.occurredAtMs)
        object.string("causeEventId", change.causeEventID)
        return object.finish()
    }

    /// The proto3 JSON of `entitlement.v1.Entitlement`.
    public static func entitlement(_ entitlement: Entitlement) -> String {
        var object = JSONObjectWriter()
        object.string("productId", entitlement.productID)
        // A grant's chain id is internal (Grant.chainID): the wire has its grant id instead.
        let grantID = entitlement.productType == .promotional ? entitlement.grantID : ""
        object.string("originalTransactionId", grantID.isEmpty ? entitlement.originalTransactionID : "")
        object.enumName("state", stateName(entitlement.state))
        object.bool("active", entitlement.isActive)
        object.int64("purchasedAtMs", entitlement.purchasedAtMs)
        object.int64("expiresAtMs", entitlement.expiresAtMs)
        object.int64("gracePeriodExpiresAtMs", entitlement.gracePeriodExpiresAtMs)
        object.bool("willAutoRenew", entitlement.willAutoRenew)
        object.bool("isTrialPeriod", entitlement.isTrialPeriod)
        object.bool("isInIntroOfferPeriod", entitlement.isInIntroOfferPeriod)
        object.enumName("productType", productTypeName(entitlement.productType))
        object.string("subscriptionGroupId", entitlement.subscriptionGroupID)
        object.enumName("environment", environmentName(entitlement.environment))
        object.string("latestTransactionId", entitlement.latestTransactionID)
        object.string("entitlementId", entitlement.entitlementID)
        object.string("grantId", grantID)
        return object.finish()
    }

    /// The proto enum value names of entitlement.proto.
    public static func stateName(_ state: EntitlementState) -> String {
        switch state {
        case .active: "ENTITLEMENT_STATE_ACTIVE"
        case .gracePeriod: "ENTITLEMENT_STATE_GRACE_PERIOD"
        case .billingRetry: "ENTITLEMENT_STATE_BILLING_RETRY"
        case .expired: "ENTITLEMENT_STATE_EXPIRED"
        case .revoked: "ENTITLEMENT_STATE_REVOKED"
        }
    }

    static func productTypeName(_ type: ProductType) -> String {
        switch type {
        case .autoRenewable: "PRODUCT_TYPE_AUTO_RENEWABLE"
        case .nonRenewing: "PRODUCT_TYPE_NON_RENEWING"
        case .nonConsumable: "PRODUCT_TYPE_NON_CONSUMABLE"
        case .consumable: "PRODUCT_TYPE_CONSUMABLE"
        case .promotional: "PRODUCT_TYPE_PROMOTIONAL"
        }
    }

    static func environmentName(_ environment: Environment) -> String {
        switch environment {
        case .production: "ENVIRONMENT_PRODUCTION"
        case .sandbox: "ENVIRONMENT_SANDBOX"
        }
    }
}

/// A compact JSON object written field by field, leaving out proto3 default values.
struct JSONObjectWriter {
    private var text = "{"
    private var isEmpty = true

    mutating func string(_ name: String, _ value: String) {
        guard !value.isEmpty else { return }
        raw(name, Self.quoted(value))
    }

    mutating func int64(_ name: String, _ value: Int64) {
        guard value != 0 else { return }
        raw(name, "\"\(value)\"")
    }

    mutating func bool(_ name: String, _ value: Bool) {
        guard value else { return }
        raw(name, "true")
    }

    mutating func enumName(_ name: String, _ value: String) {
        raw(name, Self.quoted(value))
    }

    mutating func raw(_ name: String, _ json: String) {
        if !isEmpty { text += "," }
        isEmpty = false
        text += Self.quoted(name) + ":" + json
    }

    mutating func finish() -> String {
        text + "}"
    }

    /// A JSON string literal, escaped as ServiceRuntime's ``JSONString`` escapes every one.
    static func quoted(_ value: String) -> String {
        JSONString.quoted(value)
    }
}
