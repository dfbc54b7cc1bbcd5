extension Catalog {
    /// The product fields the file format knows; anything else is rejected as a likely typo.
    static let productFields = ["product_id", "type", "entitlement_id", "duration_ms"]

    /// Reads the `--catalog` file:
    /// `{"products": [{"product_id", "type", "entitlement_id"?, "duration_ms"?}]}`.
    ///
    /// Strict on purpose: unknown keys, a wrongly typed value or an entry that does not make
    /// sense stop startup with the line to fix, since a silently skipped entry would change
    /// what users are granted. `entitlement_id` defaults to the product id.
    public init(jsonBytes: [UInt8], sourceName: String) throws(CatalogError) {
        let root: CatalogJSONReader.Node
        do {
            root = try CatalogJSONReader.read(jsonBytes)
        } catch {
            throw CatalogError(code: .invalidJSON, sourceName: sourceName, line: error.line,
                               message: error.message)
        }
        let fields = FieldReader(sourceName: sourceName)
        let products = try fields.products(in: root)
        var entries: [(entry: CatalogEntry, line: Int?)] = []
        entries.reserveCapacity(products.count)
        for (position, product) in products.enumerated() {
            entries.append(try fields.entry(from: product, position: position + 1))
        }
        try self.init(numberedEntries: entries, sourceName: sourceName)
    }
}

/// Pulls typed fields out of the JSON tree, failing with the line of the offending value.
private struct FieldReader {
    typealias Node = CatalogJSONReader.Node

    let sourceName: String

    func products(in root: Node) throws(CatalogError) -> [Node] {
        guard case .object(let members) = root.value else {
            throw error(.invalidValue, root.line, "expected a JSON object with a \"products\" array")
        }
        if let unknown = members.first(where: { $0.key != "products" }) {
            throw error(.unknownField, unknown.value.line,
                        "unknown top-level field '\(unknown.key)' (expected products)")
        }
        guard let products = members.first(where: { $0.key == "products" })?.value else {
            throw error(.missingField, root.line, "missing \"products\" array")
        }
        guard case .array(let elements) = products.value else {
            throw error(.invalidValue, products.line, "\"products\" must be an array")
        }
        return elements
    }

    /// `position` is 1-based and names the entry until its product id is known.
    func entry(from product: Node, position: Int) throws(CatalogError) -> (entry: CatalogEntry, line: Int?) {
        guard case .object(let members) = product.value else {
            throw error(.invalidValue, product.line, "product #\(position) must be an object")
        }
        guard let idNode = members.first(where: { $0.key == "product_id" })?.value else {
            throw error(.missingField, product.line, "product #\(position) has no product_id")
        }
        let productID = try nonEmptyString(idNode, "product #\(position): product_id")
        if let unknown = members.first(where: { !Catalog.productFields.contains($0.key) }) {
            throw error(.unknownField, unknown.value.line,
                        "product '\(productID)' has unknown field '\(unknown.key)'"
                            + " (expected \(Catalog.productFields.joined(separator: ", ")))")
        }

        // Promotional is for grants, which no App Store product is.
        let productTypes = ProductType.allCases.filter { $0 != .promotional }
        let expectedTypes = productTypes.map(\.rawValue).joined(separator: ", ")
        guard let typeNode = members.first(where: { $0.key == "type" })?.value else {
            throw error(.missingField, product.line,
                        "product '\(productID)' has no type (expected \(expectedTypes))")
        }
        let typeName = try nonEmptyString(typeNode, "product '\(productID)': type")
        guard let productType = ProductType(rawValue: typeName), productTypes.contains(productType) else {
            throw error(.unknownType, typeNode.line,
                        "product '\(productID)' has unknown type '\(typeName)' (expected \(expectedTypes))")
        }

        var entitlementID: String?
        if let node = members.first(where: { $0.key == "entitlement_id" })?.value {
            entitlementID = try nonEmptyString(node, "product '\(productID)': entitlement_id")
        }
        var durationMs: Int64?
        var problemLine = idNode.line
        if let node = members.first(where: { $0.key == "duration_ms" })?.value {
            durationMs = try milliseconds(node, "product '\(productID)': duration_ms")
            problemLine = node.line
        }
        let entry = CatalogEntry(productID: productID, productType: productType,
                                 entitlementID: entitlementID, durationMs: durationMs)
        // Entry-level problems (duration vs type) point at duration_ms when present.
        if let problem = entry.problem {
            throw error(problem.code, problemLine, problem.message)
        }
        return (entry, idNode.line)
    }

    private func nonEmptyString(_ node: Node, _ what: String) throws(CatalogError) -> String {
        guard case .string(let string) = node.value, !string.isEmpty else {
            throw error(.invalidValue, node.line, "\(what) must be a non-empty string")
        }
        return string
    }

    /// A whole number of milliseconds: fractions and exponents are refused rather than rounded.
    private func milliseconds(_ node: Node, _ what: String) throws(CatalogError) -> Int64 {
        guard case .number(let text) = node.value else {
            throw error(.invalidDuration, node.line, "\(what) must be a number of milliseconds")
        }
        guard let value = Int64(text) else {
            throw error(.invalidDuration, node.line,
                        "\(what) must be a whole number of milliseconds, not \(text)")
        }
        return value
    }

    private func error(_ code: CatalogError.Code, _ line: Int, _ message: String) -> CatalogError {
        CatalogError(code: code, sourceName: sourceName, line: line, message: message)
    }
}
