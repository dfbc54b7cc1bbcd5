/// The App Store environment a transaction belongs to.
public enum Environment: String, Sendable, Hashable, CaseIterable {
    case production
    case sandbox
}

/// How a product grants access; decided by the catalog, else by the shape of its transactions.
public enum ProductType: String, Sendable, Hashable, CaseIterable {
    case autoRenewable = "auto_renewable"
    case nonRenewing = "non_renewing"
    case nonConsumable = "non_consumable"
    case consumable
    /// Given by hand (``Grant``), with no Apple product behind it.
    case promotional
}

/// Where one subscription chain (or one purchase) stands at an instant.
public enum EntitlementState: String, Sendable, Hashable, CaseIterable {
    case active
    case gracePeriod = "grace_period"
    case billingRetry = "billing_retry"
    case expired
    case revoked

    /// Grace period keeps access: Apple is still retrying and the customer has not lost it yet.
    public var grantsAccess: Bool { self == .active || self == .gracePeriod }
}
