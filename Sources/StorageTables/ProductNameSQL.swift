/// SQL for product and group ids, which both engines keep as `product_names` rows.
package enum ProductNameSQL {
    /// The text of `product_names` row `column` (a reference column in scope), NULL for NULL.
    package static func name(_ column: String) -> String {
        "(SELECT pn.name FROM product_names pn WHERE pn.id = \(column))"
    }

    /// The `product_names` row of the text bound at `parameter`: NULL for NULL or a name not
    /// stored (the writer stores a name, ``FactsRecorderSQL/storeProductName``, before
    /// referencing it).
    package static func row(_ parameter: String) -> String {
        "(SELECT pn.id FROM product_names pn WHERE pn.name = \(parameter))"
    }
}
