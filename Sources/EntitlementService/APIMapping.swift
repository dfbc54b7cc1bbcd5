import EntitlementAPI
import Entitlements

/// Converts domain values to the `entitlement.v1` wire messages, in one place, so the proto
/// contract and the domain can evolve separately.
enum APIMapping {
    /// Every entitlement of `list`, in order, as wire messages.
    ///
    /// Each element is read field by field where it lies: handing whole elements to a function
    /// (`list.map(entitlement)`, or `entitlement(list[i])`, even through a buffer pointer)
    /// copies each one first, a retain and a release per string field, which CheckEntitlement's
    /// hot path would pay on every call.
    static func entitlements(_ list: [Entitlements.Entitlement]) -> [EntitlementV1.Entitlement] {
        list.withUnsafeBufferPointer { elements in
            elements.indices.map { entitlement(at: elements.baseAddress! + $0) }
        }
    }

    static func entitlement(_ e: Entitlements.Entitlement) -> EntitlementV1.Entitlement {
        withUnsafePointer(to: e) { entitlement(at: $0) }
    }

    /// The one mapping, reading the fields through `e` (see ``entitlements(_:)`` for why).
    private static func entitlement(at e: UnsafePointer<Entitlements.Entitlement>) -> EntitlementV1.Entitlement {
        if e.pointee.productType == .promotional { return grantEntitlement(e.pointee) }
        return EntitlementV1.Entitlement(
            productID: e.pointee.productID,
            originalTransactionID: e.pointee.originalTransactionID,
            state: state(e.pointee.state),
            active: e.pointee.state.grantsAccess,  // isActive, read off the stored field
            purchasedAtMs: e.pointee.purchasedAtMs,
            expiresAtMs: e.pointee.expiresAtMs,
            gracePeriodExpiresAtMs: e.pointee.gracePeriodExpiresAtMs,
            willAutoRenew: e.pointee.willAutoRenew,
            isTrialPeriod: e.pointee.isTrialPeriod,
            isInIntroOfferPeriod: e.pointee.isInIntroOfferPeriod,
            productType: productType(e.pointee.productType),
            subscriptionGroupID: e.pointee.subscriptionGroupID,
            environment: environment(e.pointee.environment),
            latestTransactionID: e.pointee.latestTransactionID,
            entitlementID: e.pointee.entitlementID)
    }

    /// A grant's row: its chain id is internal (``Grant/chainID``), so the wire shows an empty
    /// `original_transaction_id` and the grant's own id in `grant_id`.
    private static func grantEntitlement(_ e: Entitlements.Entitlement) -> EntitlementV1.Entitlement {
        var m = EntitlementV1.Entitlement(
            state: state(e.state), active: e.state.grantsAccess, purchasedAtMs: e.purchasedAtMs,
            expiresAtMs: e.expiresAtMs, productType: .promotional, environment: environment(e.environment),
            entitlementID: e.entitlementID)
        m.grantID = e.grantID
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
        case .promotional: return .promotional
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
        // A grant's chain id is internal (``Grant/chainID``); the grant id is in transaction_id.
        let isGrant = e.kind == .grant || e.kind == .grantRevoked
        m.originalTransactionID = isGrant ? "" : e.originalTransactionID
        m.expiresAtMs = e.expiresAtMs
        m.environment = environment(e.environment)
        m.source = source(e.source)
        m.appleNotificationType = e.appleNotificationType
        // An operator's words, Apple's (a consumption request's), or the ownership sentence.
        m.reason = e.source == .operator || !e.reason.isEmpty ? e.reason : reason(of: e)
        m.actor = e.actor
        return m
    }

    /// The words ListHistory shows for an ownership event: the other account it names.
    static func reason(of e: Entitlements.HistoryEvent) -> String {
        guard let other = e.counterpartUserID else { return "" }
        switch e.kind {
        case .ownershipTransfer: return "moved to user \(other)"
        case .claimRefused: return "claim by user \(other) refused: the purchase is bound to this account"
        default: return ""
        }
    }

    /// Fills in each entitlement's app account token from the transaction it names in `facts`
    /// (canonical form; malformed tokens stay empty). Most users' purchases carry none, and then
    /// this is one pass over their transactions.
    static func addAppAccountTokens(_ entitlements: inout [EntitlementV1.Entitlement], from facts: UserFacts) {
        guard !entitlements.isEmpty, facts.transactions.contains(where: { $0.appAccountToken != nil }) else { return }
        for index in entitlements.indices {
            let latest = entitlements[index].latestTransactionID
            guard let raw = facts.transactions.first(where: { $0.transactionID == latest })?.appAccountToken,
                  let token = AppAccountToken.canonical(raw) else { continue }
            entitlements[index].appAccountToken = token
        }
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
        case .claimRefused: return .claimRefused
        case .grant: return .grant
        case .grantRevoked: return .grantRevoked
        case .renewalExtended: return .renewalExtended
        case .consumptionRequest: return .consumptionRequest
        case .refundDeclined: return .refundDeclined
        case .refreshed: return .entitlementsRefreshed
        case .other: return .unspecified
        }
    }

    static func source(_ s: Entitlements.HistoryEvent.Source) -> EntitlementV1.EventSource {
        switch s {
        case .receipt: return .receipt
        case .notificationV1: return .notificationV1
        case .notificationV2: return .notificationV2
        case .operator: return .operator
        }
    }
}
