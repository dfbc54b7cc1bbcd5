import SQLDatabase

/// The writer's file-health signal (``WriterHealth``): recorded from failed writes, cleared by
/// commits and by a probe while failing.
extension Writer {
    /// How often a failing writer tries a write of its own.
    static var fileProbeInterval: Duration { .seconds(1) }

    /// Records a write's final failure when it is the file's, not the write's.
    func noteFailure(_ error: any Error) {
        guard !DB.isSharedByReplicas, let failure = error as? any SQLFailure, failure.isFileFailure else { return }
        health.fail("the database file cannot be written: \(failure)")
    }

    /// While writes fail for the file's sake: once a second, a one-page write transaction
    /// (`user_version` set to what it is, which rewrites the header page and must reach the
    /// log and the disk like any commit). Its success clears the signal with no caller's write.
    func probeFileWhileFailing() {
        guard health.failureReason != nil, ContinuousClock.now >= nextFileProbeAt else { return }
        nextFileProbeAt = ContinuousClock.now + Self.fileProbeInterval
        db.rollbackIgnoringErrors()
        do {
            try db.transaction(beginning: DB.beginWrite) {
                let version = try db.scalarInt64("PRAGMA user_version") ?? 0
                try db.execute("PRAGMA user_version = \(version)")
            }
            health.recover()
        } catch {
            noteFailure(error)
        }
    }

    /// At most until the next probe while failing.
    func millisecondsUntilFileProbe() -> Int64? {
        guard health.failureReason != nil else { return nil }
        return max(0, ContinuousClock.now.duration(to: nextFileProbeAt).inMillisecondsRoundedUp)
    }
}
