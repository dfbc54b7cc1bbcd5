import EntitlementPorts
import SQLDatabase
import ServiceRuntime
import StorageTables

/// What the writer needs to keep the change log: its clock, retention, observers and reports.
package struct ChangeLogSettings: Sendable {
    package var clock: UnixClock
    /// How long a change stays in the log; `nil` keeps every change.
    package var retentionMs: Int64?
    /// Whether the writer wakes by itself at due instants (see ``StoreConfiguration/dueTimer``).
    package var dueTimer: Bool
    package let observers = Locked<[@Sendable (Int64) -> Void]>([])
    package var reporting: ChangeLogReporting
}

/// The writer's timer: time-driven changes at their instant, and pruning in the background.
///
/// One timer for every chain, not a scan of users: the writer knows the earliest due instant
/// of any head (``nextDueMs``, one step down a partial index after each commit) and waits for
/// work at most until then (``endOfRound()`` answers the executor how long). Every batch also
/// consumes what is due before its facts, so a change that was due is never attributed to the
/// fact that arrives after it. On startup the first wait is zero: instants passed while the
/// server was down are caught up at once, each dated at its own instant.
extension Writer {
    /// How long the writer may wait for jobs before its timed work is due.
    package func millisecondsUntilTimedWork() -> Int64 {
        var wait = WriterLimits.maxTimerWaitMs
        guard singletonDuties.withLock({ $0 }) else { return WriterLimits.maxTimerWaitMs }
        // Other replicas' commits move heads too, and only their NOTIFY says so: look again soon.
        if DB.isSharedByReplicas { wait = WriterLimits.sharedTimerWaitMs }
        if let baselineDueAt {
            wait = min(wait, max(0, ContinuousClock.now.duration(to: baselineDueAt).inMillisecondsRoundedUp))
        }
        if changeLog.dueTimer, let nextDueMs { wait = min(wait, max(0, nextDueMs - changeLog.clock())) }
        if changeLog.retentionMs != nil {
            wait = min(wait, max(0, ContinuousClock.now.duration(to: nextPruneAt).inMillisecondsRoundedUp))
        }
        return wait
    }

    /// Runs what the clock says is due: the due changes, then one prune chunk. A failure (disk
    /// full) is retried on the next wake-up, a second later at the earliest.
    package func runTimedWork() {
        let active = singletonDuties.withLock { $0 }
        defer { dutiesWereActive = active }
        guard active else { return }
        if !dutiesWereActive || DB.isSharedByReplicas {
            refreshNextDue()
            if !dutiesWereActive { nextPruneAt = ContinuousClock.now }
        }
        if let baselineDueAt, ContinuousClock.now >= baselineDueAt { recordBaselineChunk() }
        if changeLog.dueTimer, let nextDueMs, nextDueMs <= changeLog.clock() {
            do {
                _ = try commitDueChanges()
            } catch {
                self.nextDueMs = changeLog.clock() + 1_000
            }
        }
        if let retentionMs = changeLog.retentionMs, ContinuousClock.now >= nextPruneAt {
            do {
                let chunk = WriterLimits.pruneChunk
                let pruned = try pruneChanges(occurredBefore: changeLog.clock() - retentionMs, limit: chunk)
                // A full chunk means more is waiting: the next one runs after the queued writes.
                nextPruneAt = ContinuousClock.now + (pruned == chunk ? .zero : WriterLimits.pruneInterval)
            } catch {
                nextPruneAt = ContinuousClock.now + .seconds(1)
            }
        }
    }

    /// One transaction of the baseline for users who predate the change log; a failure is
    /// retried on the next wake-up.
    private func recordBaselineChunk() {
        db.rollbackIgnoringErrors()
        do {
            let more = try db.transaction(beginning: DB.beginWrite) {
                try changes.recordBaseline(nowMs: changeLog.clock(), limit: WriterLimits.baselineChunk)
            }
            // Writes queued meanwhile go first: the next chunk follows them.
            baselineDueAt = more ? ContinuousClock.now : nil
            refreshNextDue()
        } catch {
            baselineDueAt = ContinuousClock.now + .seconds(1)
        }
    }

    /// Appends the changes due by now inside the open transaction (at the start of every
    /// batch and in ``commitDueChanges()``); the cached ``nextDueMs`` spares the probe when
    /// nothing is due.
    package func recordDueChanges() throws {
        let now = changeLog.clock()
        guard let nextDueMs, nextDueMs <= now else { return }
        let due = try changes.recordDueChanges(nowMs: now, limit: WriterLimits.duePerTransaction)
        appendedChanges["time", default: 0] += due.appended
        if due.headsDue > 0 { pendingDueLagSeconds = Double(due.lagMs) / 1_000 }
    }

    /// One transaction of due changes alone (the timer, or ``SQLStore/recordDueChanges()``).
    package func commitDueChanges() throws -> Int {
        db.rollbackIgnoringErrors()
        appendedChanges = [:]
        pendingDueLagSeconds = nil
        do {
            try db.transaction(beginning: DB.beginWrite) {
                try recordDueChanges()
                try publishCommit(users: [])
            }
        } catch {
            throw StoreError.storage(error, "recording time-driven changes")
        }
        let appended = appendedChanges["time"] ?? 0
        changesCommitted()
        return appended
    }

    /// One transaction deleting up to `limit` changes that occurred before `cutoffMs`.
    package func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) throws -> Int {
        db.rollbackIgnoringErrors()
        let pruned: Int
        do {
            pruned = try db.transaction(beginning: DB.beginWrite) {
                try changes.pruneChanges(occurredBefore: cutoffMs, limit: limit)
            }
        } catch {
            throw StoreError.storage(error, "pruning the change log")
        }
        if pruned > 0 { changeLog.reporting.pruned?(pruned) }
        return pruned
    }

    /// Hands the transaction's affected users and, when it appended changes, the newest
    /// sequence to ``publish`` (inside the transaction, before COMMIT).
    package func publishCommit(users: [String]) throws {
        guard let publish else { return }
        let appended = appendedChanges.values.contains { $0 > 0 }
        guard !users.isEmpty || appended else { return }
        try publish(db, users, appended ? try changes.latestSequence() : nil)
    }

    /// After a commit: report what it appended, wake the log's observers with the newest
    /// sequence, and re-arm the timer (the commit may have moved any head).
    package func changesCommitted() {
        if let lag = pendingDueLagSeconds { changeLog.reporting.dueLag?(lag) }
        pendingDueLagSeconds = nil
        let appended = appendedChanges.filter { $0.value > 0 }
        appendedChanges = [:]
        refreshNextDue()
        guard !appended.isEmpty else { return }
        if let report = changeLog.reporting.appended {
            for (cause, count) in appended { report(cause, count) }
        }
        guard let latest = try? changes.latestSequence() else { return }
        for observer in changeLog.observers.withLock({ $0 }) { observer(latest) }
    }

    package func refreshNextDue() {
        do {
            nextDueMs = try changes.nextDueInstant()
        } catch {
            nextDueMs = changeLog.clock() + 1_000  // look again in a second
        }
    }
}
