internal import Foundation

/// A fresh directory under the system's temporary directory, for tests that need real files
/// (SQLite databases, secret files); ``remove()`` deletes it and everything in it.
public struct TemporaryDirectory: Sendable {
    public let path: String

    /// Creates `<tmp>/<prefix>-<UUID>`.
    public init(_ prefix: String) throws {
        path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs `body` with a fresh ``TemporaryDirectory`` and removes it afterwards, whether `body`
/// returns or throws.
public func withTemporaryDirectory<T>(
    _ prefix: String, _ body: (TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory(prefix)
    defer { directory.remove() }
    return try await body(directory)
}
