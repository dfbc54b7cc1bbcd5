import Foundation
import XCTest

/// Fixtures read from the shared samples folder next to the repository (never copied in).
enum Samples {
    /// `Tests/AppStoreTests/Samples.swift` -> repository root -> `../shared/samples`.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/samples")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// A JSON value re-serialized as input bytes.
    static func jsonBytes(_ object: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }

    static func jsonObject(_ name: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try bytes(name)))
    }
}
