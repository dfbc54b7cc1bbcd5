/// Counters of the store's writer, for metrics and for tests of group commit.
public struct StoreStatistics: Sendable, Hashable {
    /// Write transactions committed (one fsync each under synchronous=FULL).
    public var commits: Int
    /// Writes and notifications acknowledged as applied; over ``commits``, the group-commit factor.
    public var appliedWrites: Int

    public init(commits: Int = 0, appliedWrites: Int = 0) {
        self.commits = commits
        self.appliedWrites = appliedWrites
    }
}
