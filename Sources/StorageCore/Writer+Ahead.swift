import EntitlementPorts
import StorageTables

/// The next writes' first reads, sent before the write in progress waits: on a server they
/// share its waits instead of taking their own (docs/storage.md).
extension Writer {
    /// Sends the first lookups of `next`, a facts write, once the write before it has sent all
    /// of its facts, so they go with that write's change reads: one wait fewer per write on a
    /// server. They read only users, chains and transactions, which change recording never
    /// writes, so they see what they would see when `next` starts. Only in a batch without
    /// savepoints: a savepoint rolled back would leave them holding rows it undid (a failed
    /// attempt's are dropped before the batch runs again).
    package func prefetchLookups(of next: WriteJob<DB>?) throws {
        guard case let .write(write, _)? = next else { return }
        try recorder.prefetchFirstReads(of: write)
    }

    /// The notifications queued right after `notification` whose first stages go with its own
    /// (``FactsRecorder/notificationsAhead(of:following:)``); `following` is empty in a batch
    /// with savepoints, where a write rolled back alone would take a later one's mark with it.
    func notificationsAhead(of notification: NotificationWrite, following: ArraySlice<WriteJob<DB>>)
        -> ArraySlice<NotificationWrite> {
        var run: [NotificationWrite] = []
        for job in following.prefix(WriterLimits.notificationsAhead) {
            guard case let .notification(next, _) = job else { break }
            run.append(next)
        }
        return run.isEmpty ? [] : recorder.notificationsAhead(of: notification, following: run)
    }
}
