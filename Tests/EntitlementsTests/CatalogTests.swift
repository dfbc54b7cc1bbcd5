import Entitlements
import XCTest

/// The `--catalog` file: a valid file's contents, and every rejection naming its line.
final class CatalogTests: XCTestCase {
    func testValidCatalog() throws {
        let catalog = try catalog("""
            {
              "products": [
                {"product_id": "pro.monthly", "type": "auto_renewable", "entitlement_id": "pro"},
                {"product_id": "pro.yearly", "type": "auto_renewable", "entitlement_id": "pro"},
                {"product_id": "season", "type": "non_renewing", "duration_ms": 2592000000},
                {"product_id": "caf\\u00e9 \\ud83d\\ude00", "type": "consumable"}
              ]
            }
            """)
        XCTAssertEqual(catalog.entries.count, 4)
        XCTAssertEqual(catalog.entry(for: "pro.yearly"),
                       CatalogEntry(productID: "pro.yearly", productType: .autoRenewable, entitlementID: "pro"))
        XCTAssertEqual(catalog.entry(for: "season"),
                       CatalogEntry(productID: "season", productType: .nonRenewing, entitlementID: "season",
                                    durationMs: 2_592_000_000))
        XCTAssertEqual(catalog.entry(for: "café 😀")?.productType, .consumable)
        XCTAssertNil(catalog.entry(for: "unknown"))
        XCTAssertEqual(catalog.productIDs(forEntitlement: "pro"), ["pro.monthly", "pro.yearly"])
        XCTAssertEqual(catalog.productIDs(forEntitlement: "nothing"), [])
    }

    func testEmptyProductListAndByteOrderMark() throws {
        XCTAssertTrue(try catalog(#"{"products": []}"#).isEmpty)
        let withMark = try Catalog(jsonBytes: [0xEF, 0xBB, 0xBF] + Array(#"{"products":[]}"#.utf8),
                                   sourceName: "bom.json")
        XCTAssertTrue(withMark.isEmpty)
        XCTAssertTrue(Catalog.empty.isEmpty)
        XCTAssertNil(Catalog.empty.entry(for: "pro.monthly"))
    }

    private struct Failure {
        var name: String
        var json: String
        var code: CatalogError.Code
        var description: String
    }

    private static let failures: [Failure] = [
        Failure(name: "unknown type names the product, the type and the choices", json: """
            {
              "products": [
                {"product_id": "a", "type": "consumable"},
                {
                  "product_id": "x",
                  "entitlement_id": "pro",
                  "type": "monthly"
                }
              ]
            }
            """, code: .unknownType, description: "catalog.json line 7: product 'x' has unknown type"
                + " 'monthly' (expected auto_renewable, non_renewing, non_consumable, consumable)"),
        Failure(name: "missing product_id", json: """
            {"products": [
              {"product_id": "a", "type": "consumable"},
              {"type": "consumable"}
            ]}
            """, code: .missingField, description: "catalog.json line 3: product #2 has no product_id"),
        Failure(name: "empty product_id", json: """
            {"products": [{"product_id": "", "type": "consumable"}]}
            """, code: .invalidValue,
            description: "catalog.json line 1: product #1: product_id must be a non-empty string"),
        Failure(name: "duplicate product_id names both lines", json: """
            {"products": [
              {"product_id": "a", "type": "consumable"},
              {"product_id": "b", "type": "consumable"},
              {"product_id": "a", "type": "non_consumable"}
            ]}
            """, code: .duplicateProduct,
            description: "catalog.json line 4: product 'a' is listed twice (first on line 2)"),
        Failure(name: "non_renewing without duration", json: """
            {"products": [
              {"product_id": "season",
               "type": "non_renewing"}
            ]}
            """, code: .invalidDuration,
            description: "catalog.json line 2: product 'season' is non_renewing and needs a positive duration_ms"),
        Failure(name: "non_renewing with zero duration", json: """
            {"products": [
              {"product_id": "season", "type": "non_renewing",
               "duration_ms": 0}
            ]}
            """, code: .invalidDuration,
            description: "catalog.json line 3: product 'season' is non_renewing and needs a positive duration_ms"),
        Failure(name: "non_renewing with negative duration", json: """
            {"products": [{"product_id": "s", "type": "non_renewing", "duration_ms": -5}]}
            """, code: .invalidDuration,
            description: "catalog.json line 1: product 's' is non_renewing and needs a positive duration_ms"),
        Failure(
            name: "fractional duration",
            json: """
                {"products": [{"product_id": "s", "type": "non_renewing", "duration_ms": 1.5}]}
                """, code: .invalidDuration,
            description: "catalog.json line 1: product 's': duration_ms must be a whole number of milliseconds, not 1.5"
        ),
        Failure(
            name: "duration as a string",
            json: """
                {"products": [{"product_id": "s", "type": "non_renewing", "duration_ms": "100"}]}
                """, code: .invalidDuration,
            description: "catalog.json line 1: product 's': duration_ms must be a number of milliseconds"),
        Failure(name: "duration on an auto_renewable is rejected", json: """
            {"products": [
              {"product_id": "pro", "type": "auto_renewable",
               "duration_ms": 2592000000}
            ]}
            """, code: .invalidDuration,
            description: "catalog.json line 3: product 'pro' is auto_renewable and cannot have duration_ms"
                + " (only non_renewing products have a fixed duration)"),
        Failure(name: "missing type", json: """
            {"products": [{"product_id": "a"}]}
            """, code: .missingField, description: "catalog.json line 1: product 'a' has no type"
                + " (expected auto_renewable, non_renewing, non_consumable, consumable)"),
        Failure(name: "type not a string", json: """
            {"products": [{"product_id": "a", "type": 3}]}
            """, code: .invalidValue, description: "catalog.json line 1: product 'a': type must be a non-empty string"),
        Failure(name: "misspelt field", json: """
            {"products": [
              {"product_id": "a", "type": "consumable",
               "entitlment_id": "pro"}
            ]}
            """, code: .unknownField, description: "catalog.json line 3: product 'a' has unknown field"
                + " 'entitlment_id' (expected product_id, type, entitlement_id, duration_ms)"),
        Failure(name: "empty entitlement_id", json: """
            {"products": [{"product_id": "a", "type": "consumable", "entitlement_id": ""}]}
            """, code: .invalidValue,
            description: "catalog.json line 1: product 'a': entitlement_id must be a non-empty string"),
        Failure(name: "product not an object", json: """
            {"products": [
              "pro.monthly"
            ]}
            """, code: .invalidValue, description: "catalog.json line 2: product #1 must be an object"),
        Failure(name: "top level not an object", json: "\n[]", code: .invalidValue,
                description: "catalog.json line 2: expected a JSON object with a \"products\" array"),
        Failure(name: "missing products", json: "{}", code: .missingField,
                description: "catalog.json line 1: missing \"products\" array"),
        Failure(name: "products not an array", json: #"{"products": {}}"#, code: .invalidValue,
                description: "catalog.json line 1: \"products\" must be an array"),
        Failure(name: "unknown top-level field", json: """
            {"products": [],
             "version": 2}
            """, code: .unknownField,
            description: "catalog.json line 2: unknown top-level field 'version' (expected products)"),
        Failure(name: "syntax: missing comma", json: """
            {"products": [
              {"product_id": "a", "type": "consumable"}
              {"product_id": "b", "type": "consumable"}
            ]}
            """, code: .invalidJSON, description: "catalog.json line 3: unexpected '{', expected ',' or ']'"),
        Failure(name: "syntax: trailing comma", json: """
            {"products": [
              {"product_id": "a", "type": "consumable"},
            ]}
            """, code: .invalidJSON, description: "catalog.json line 3: unexpected ']', expected a value"),
        Failure(name: "syntax: CRLF line endings still count lines", json: "{\r\n\"products\": [\r\n}",
                code: .invalidJSON, description: "catalog.json line 3: unexpected '}', expected a value"),
        Failure(name: "syntax: unterminated string", json: "{\"products\": [\n{\"product_id\": \"a",
                code: .invalidJSON, description: "catalog.json line 2: unexpected end of file inside a string"),
        Failure(name: "syntax: empty file", json: "", code: .invalidJSON,
                description: "catalog.json line 1: unexpected end of file, expected a value"),
        Failure(name: "syntax: trailing garbage", json: "{\"products\": []}\n\nx", code: .invalidJSON,
                description: "catalog.json line 3: unexpected 'x' after the end of the document"),
        Failure(name: "syntax: duplicate key", json: """
            {"products": [{"product_id": "a",
                           "product_id": "b", "type": "consumable"}]}
            """, code: .invalidJSON, description: "catalog.json line 2: key 'product_id' appears twice in one object"),
        Failure(name: "syntax: unknown escape", json: #"{"products": [{"product_id": "a\q"}]}"#,
                code: .invalidJSON,
                description: "catalog.json line 1: unknown escape in a string: '\\' followed by 'q'"),
        Failure(name: "syntax: lone surrogate", json: #"{"products": [{"product_id": "\udc00"}]}"#,
                code: .invalidJSON, description: "catalog.json line 1: a \\u escape holds an unpaired surrogate"),
        Failure(name: "syntax: raw tab in a string", json: "{\"products\": [{\"product_id\": \"a\tb\"}]}",
                code: .invalidJSON, description: "catalog.json line 1: a string contains a raw control"
                    + " character (byte 0x09); strings cannot span lines"),
        Failure(name: "syntax: leading zero", json: #"{"products": [{"duration_ms": 01}]}"#,
                code: .invalidJSON, description: "catalog.json line 1: unexpected '1', expected ',' or '}'"),
        Failure(name: "syntax: single quotes", json: "{'products': []}", code: .invalidJSON,
                description: "catalog.json line 1: unexpected ''', expected a quoted key"),
        Failure(name: "syntax: bare word", json: #"{"products": [tru]}"#, code: .invalidJSON,
                description: "catalog.json line 1: unexpected 't', expected a value"),
        Failure(name: "syntax: nesting too deep", json: String(repeating: "[", count: 65), code: .invalidJSON,
                description: "catalog.json line 1: nesting deeper than 64 levels"),
    ]

    func testRejectionsNameTheLine() {
        for failure in Self.failures {
            do {
                _ = try catalog(failure.json)
                XCTFail("\(failure.name): accepted")
            } catch {
                XCTAssertEqual(error.code, failure.code, failure.name)
                XCTAssertEqual(error.description, failure.description, failure.name)
            }
        }
    }

    func testInvalidUTF8IsRejected() {
        let bytes = Array(#"{"products": [{"product_id": ""#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8)
        XCTAssertThrowsError(try Catalog(jsonBytes: bytes, sourceName: "bad.json")) { error in
            XCTAssertEqual((error as? CatalogError)?.description, "bad.json line 1: a string is not valid UTF-8")
        }
    }

    /// Catalogs built in code get the same checks, without a line to name.
    func testEntriesBuiltInCode() throws {
        let built = try Catalog(entries: [
            CatalogEntry(productID: "season", productType: .nonRenewing, durationMs: 1000),
            CatalogEntry(productID: "pro.monthly", productType: .autoRenewable, entitlementID: "pro"),
        ])
        XCTAssertEqual(built.entry(for: "season")?.entitlementID, "season")
        XCTAssertEqual(built.productIDs(forEntitlement: "pro"), ["pro.monthly"])

        let failures: [(String, [CatalogEntry], String)] = [
            ("duplicate", [CatalogEntry(productID: "a", productType: .consumable),
                           CatalogEntry(productID: "a", productType: .consumable)],
             "catalog: product 'a' is listed twice"),
            ("no duration", [CatalogEntry(productID: "s", productType: .nonRenewing)],
             "catalog: product 's' is non_renewing and needs a positive duration_ms"),
        ]
        for (name, entries, description) in failures {
            XCTAssertThrowsError(try Catalog(entries: entries), name) { error in
                XCTAssertEqual((error as? CatalogError)?.description, description, name)
                XCTAssertNil((error as? CatalogError)?.line, name)
            }
        }
    }
}
