import EntitlementAPI
import Entitlements

/// Converts domain values to the `entitlement.v1` wire messages, in one place, so the proto
/// contract and the domain can evolve separately.
enum APIMapping {
    static func entitlement(_ e: Entitlements.Entitlement) -> EntitlementV1.Entitlement {
        var m = EntitlementV1.Entitlement()
        m.productID = e.productID
        m.originalTransactionID = e.originalTransactionID
        m.state = state(e.state)
        m.active = e.isActive
        m.purchasedAtMs = e.purchasedAtMs
        m.expiresAtMs = e.expiresAtMs
        m.gracePeriodExpiresAtMs = e.gracePeriodExpiresAtMs
        m.willAutoRenew = e.willAutoRenew
        m.isTrialPeriod = e.isTrialPeriod
        m.isInIntroOfferPeriod = e.isInIntroOfferPeriod
        m.productType = productType(e.productType)
        m.subscriptionGroupID = e.subscriptionGroupID
        m.environment = environment(e.environment)
        m.latestTransactionID = e.latestTransactionID
        m.entitlementID = e.entitlementID
        return m
    }

    static func state(_ s: EntitlementState) -> EntitlementV1.EntitlementState {
        switch s {
        case .active: return .active
        case .gracePeriod: return .gracePeriod
        case .billingRetry: return .billingRetry
        case .expired: return .expired
        case .revoked: return .revoked
        }
    }

    static func productType(_ t: ProductType) -> EntitlementV1.ProductType {
        switch t {
        case .autoRenewable: return .autoRenewable
        case .nonRenewing: return .nonRenewing
        case .nonConsumable: return .nonConsumable
        case .consumable: return .consumable
        }
    }

    static func environment(_ e: Environment) -> EntitlementV1.Environment {
        e == .sandbox ? .sandbox : .production
    }

    static func historyEvent(_ e: Entitlements.HistoryEvent) -> EntitlementV1.HistoryEvent {
        var m = EntitlementV1.HistoryEvent()
        m.eventID = e.eventID
        m.type = eventType(e.kind)
        m.occurredAtMs = e.occurredAtMs
        m.productID = e.productID
        m.transactionID = e.transactionID
        m.originalTransactionID = e.originalTransactionID
        m.expiresAtMs = e.expiresAtMs
        m.environment = environment(e.environment)
        m.source = source(e.source)
        m.appleNotificationType = e.appleNotificationType
        return m
    }

    static func eventType(_ kind: Entitlements.HistoryEvent.Kind) -> EntitlementV1.EventType {
        switch kind {
        case .purchase: return .purchase
        case .renewal: return .renewal
        case .expired: return .expired
        case .refund: return .refund
        case .revoke: return .revoke
        case .autoRenewDisabled: return .autoRenewDisabled
        case .autoRenewEnabled: return .autoRenewEnabled
        case .billingRetry: return .billingRetry
        case .gracePeriod: return .gracePeriod
        case .billingRecovered: return .billingRecovered
        case .productChange: return .productChange
        case .ownershipTransfer: return .ownershipTransfer
        case .other: return .unspecified
        }
    }

    static func source(_ s: Entitlements.HistoryEvent.Source) -> EntitlementV1.EventSource {
        switch s {
        case .receipt: return .receipt
        case .notificationV1: return .notificationV1
        case .notificationV2: return .notificationV2
        }
    }
}
