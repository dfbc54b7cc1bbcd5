/// What the app's catalog says about one product: how it grants access and under which name.
public struct CatalogEntry: Sendable, Hashable {
    public var productID: String
    public var productType: ProductType
    /// The name apps ask for; several products (monthly, yearly) usually share one.
    public var entitlementID: String
    /// The fixed length of a non-renewing subscription; Apple does not track it, the app does.
    /// `nil` for every other type.
    public var durationMs: Int64?

    public init(
        productID: String, productType: ProductType, entitlementID: String? = nil,
        durationMs: Int64? = nil
    ) {
        self.productID = productID
        self.productType = productType
        self.entitlementID = entitlementID ?? productID
        self.durationMs = durationMs
    }

    /// Why the entry cannot be used, or `nil`; shared by the JSON and the in-code paths.
    ///
    /// A `duration_ms` on any other type is rejected rather than ignored: it almost always
    /// means the product was given the wrong type, and ignoring it would grant the wrong span.
    var problem: (code: CatalogError.Code, message: String)? {
        if productID.isEmpty { return (.invalidValue, "product_id must be a non-empty string") }
        if entitlementID.isEmpty {
            return (.invalidValue, "product '\(productID)': entitlement_id must be a non-empty string")
        }
        switch (productType, durationMs) {
        case (.nonRenewing, let duration?) where duration > 0:
            return nil
        case (.nonRenewing, _):
            return (.invalidDuration,
                    "product '\(productID)' is non_renewing and needs a positive duration_ms")
        case (_, .some):
            return (.invalidDuration,
                    "product '\(productID)' is \(productType.rawValue) and cannot have duration_ms"
                        + " (only non_renewing products have a fixed duration)")
        case (_, nil):
            return nil
        }
    }
}
