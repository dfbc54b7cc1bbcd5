/// The writer's timed-work limits (a generic type cannot hold static stored properties).
package enum WriterLimits {
    /// Heads consumed per transaction at most, so a catch-up after long downtime never holds
    /// the writer for long; the rest follows in the next transactions, writes in between.
    package static let duePerTransaction = 2_000
    /// Changes deleted per prune transaction: small enough never to stall the writer.
    package static let pruneChunk = 1_000
    /// How often the background prune looks for changes past retention.
    package static let pruneInterval = Duration.seconds(60)
    /// The longest the writer sleeps without looking at the clock again (clock jumps, tests).
    package static let maxTimerWaitMs: Int64 = 60_000
    /// The timer's longest sleep when other replicas share the database (their commits move
    /// heads this writer does not see): the due timer re-reads the earliest instant this often.
    package static let sharedTimerWaitMs: Int64 = 1_000
    /// Pre-existing users given heads per transaction by the baseline pass.
    package static let baselineChunk = 500
    /// Chains the daily rollup reads per statement before COMMIT, where the engine takes a list
    /// (``FactsRecorder/rollupTransactions(chainRows:)``): a batch's chains, in one wait.
    package static let rollupChainsPerRead = 1_000
    /// Notifications whose first stages go with the one before them at most
    /// (``FactsRecorder/notificationsAhead(of:following:)``): each takes a lane of prepared
    /// statements on the server, and a run this long already waits once for ~30 writes.
    package static let notificationsAhead = 32
}
