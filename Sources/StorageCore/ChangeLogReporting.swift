/// What the store tells the composition root about its change log, for metrics; each closure
/// runs on the writer thread after the commit it reports and must not block.
public struct ChangeLogReporting: Sendable {
    /// Changes appended by one commit, per cause: `receipt`, `notification_v1`,
    /// `notification_v2` (the fact's source) or `time` (the due timer).
    public var appended: (@Sendable (_ cause: String, _ count: Int) -> Void)?
    /// A due pass committed: how late (seconds after its instant) its latest due head was
    /// handled. Large after downtime (the startup catch-up), ~ms when serving.
    public var dueLag: (@Sendable (_ seconds: Double) -> Void)?
    /// Changes pruned past retention by one background chunk.
    public var pruned: (@Sendable (_ count: Int) -> Void)?

    public init(appended: (@Sendable (_ cause: String, _ count: Int) -> Void)? = nil,
                dueLag: (@Sendable (_ seconds: Double) -> Void)? = nil,
                pruned: (@Sendable (_ count: Int) -> Void)? = nil) {
        self.appended = appended
        self.dueLag = dueLag
        self.pruned = pruned
    }
}
