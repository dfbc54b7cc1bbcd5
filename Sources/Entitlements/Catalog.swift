/// The app's own product list: each product's type and the entitlement it grants.
///
/// Optional: without an entry the rules classify a product by the shape of its transactions
/// (see ``EntitlementRules``). Only non-renewing subscriptions truly need one, for their
/// duration, which Apple does not track.
public struct Catalog: Sendable {
    /// No products: every product is classified by its transactions.
    public static let empty = Catalog(validatedEntries: [])

    /// In file order, so listings and errors follow what the operator wrote.
    public let entries: [CatalogEntry]
    /// Looked up once per chain on the hot path; catalogs can list many products, so a hash
    /// beats a scan here.
    private let indexByProductID: [String: Int]

    /// Builds a catalog in code (tests, tools), with the same checks as the file format.
    public init(entries: [CatalogEntry]) throws(CatalogError) {
        try self.init(numberedEntries: entries.map { ($0, nil) }, sourceName: "catalog")
    }

    /// Entries already checked one by one; `line` is where each was written, if anywhere.
    init(numberedEntries: [(entry: CatalogEntry, line: Int?)], sourceName: String) throws(CatalogError) {
        var index: [String: Int] = [:]
        index.reserveCapacity(numberedEntries.count)
        for (position, numbered) in numberedEntries.enumerated() {
            if let problem = numbered.entry.problem {
                throw CatalogError(code: problem.code, sourceName: sourceName, line: numbered.line,
                                   message: problem.message)
            }
            let productID = numbered.entry.productID
            if let first = index[productID] {
                let firstLine = numberedEntries[first].line.map { " (first on line \($0))" } ?? ""
                throw CatalogError(code: .duplicateProduct, sourceName: sourceName, line: numbered.line,
                                   message: "product '\(productID)' is listed twice\(firstLine)")
            }
            index[productID] = position
        }
        self.entries = numberedEntries.map(\.entry)
        self.indexByProductID = index
    }

    private init(validatedEntries: [CatalogEntry]) {
        self.entries = validatedEntries
        self.indexByProductID = [:]
    }

    public var isEmpty: Bool { entries.isEmpty }

    public func entry(for productID: String) -> CatalogEntry? {
        // Most deployments run without a catalog: skip hashing the id at all.
        guard !entries.isEmpty, let position = indexByProductID[productID] else { return nil }
        return entries[position]
    }

    /// The catalog's products that grant `entitlementID`, in file order.
    ///
    /// Products missing from the catalog grant an entitlement named after themselves; they
    /// are unknown here, so callers that match on entitlement ids should also accept the id
    /// as a product id.
    public func productIDs(forEntitlement entitlementID: String) -> [String] {
        entries.filter { $0.entitlementID == entitlementID }.map(\.productID)
    }
}
