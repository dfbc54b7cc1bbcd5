import Glibc
import EntitlementPorts
import Entitlements
import SQLDatabase
import ServiceRuntime
import StorageTables
import Synchronization

/// The write path's state: the writer's connection, its recorders, the batch in its transaction
/// and the timed work; owned by the store actor, so only code isolated to it (on the writer
/// thread) reaches it.
///
/// Group commit: callers queue their writes in the executor's inbox and suspend; at the end of
/// each round (``endOfRound()``) the writer takes everything queued as one batch and commits it
/// as one BEGIN IMMEDIATE ... COMMIT (one fsync), so the writes that arrive while one batch
/// commits all share the next.
///
/// Failure handling: each write runs in its own savepoint, so a write that fails on its own
/// account (an ownership conflict, a malformed write, a constraint) is undone alone and
/// answered with its error while the rest of the batch commits. Savepoints are paid only when
/// needed: a batch first runs without them (a savepoint copies every page its write touches
/// into a sub-journal, 5-9 % of the writer's time when profiled); if one of its writes fails on
/// its own account, nothing of it is kept and the batch runs again with a savepoint per write,
/// which is what answers. A storage failure (disk full,
/// I/O error, lock timeout) is not the write's fault, and SQLite may already have rolled back
/// the whole transaction (its documented answer to SQLITE_FULL and SQLITE_IOERR), so it aborts
/// the batch instead. Whenever BEGIN, a write or COMMIT fails that way, nothing in the batch is
/// durable: each write is retried alone in its own transaction, and only those that fail again
/// get the error. The connection stays usable (any transaction left open is rolled back before
/// the next batch), so the writer recovers by itself once space returns. The cache is
/// invalidated for affected users after COMMIT and before any caller is resumed, which is what
/// makes an acknowledged write visible to reads; a failed batch changes nothing a reader sees.
package final class Writer<DB: StorageEngine> {
    package let db: DB
    let recorder: FactsRecorder<DB>
    /// Each write's savepoint (see ``answer(_:failing:_:)``), its statements held.
    package let writeSavepoint: SQLSavepoint<DB>
    package let changes: ChangeRecorder<DB>
    package let changeLog: ChangeLogSettings
    private let cache: FactsCache
    private let readers: ReaderPool<DB>
    private let statistics: Locked<StoreStatistics>
    private let maxBatchSize: Int
    private let onCommit: (@Sendable (Int, Double) -> Void)?
    /// Runs inside each write transaction, before COMMIT, with the users whose facts it changed
    /// (`nil`: possibly anyone, after a seed) and the newest change sequence when it appended
    /// changes. PostgreSQL's NOTIFY to the other replicas, delivered only if the COMMIT is.
    package typealias Publish = (_ db: DB, _ users: [String]?, _ latestSequence: Int64?) throws -> Void
    package let publish: Publish?
    /// Whether the timed work (due changes at their instant, pruning, the baseline) runs here:
    /// with several replicas on one database only the lease holder's writer does it
    /// (``SQLStore/setSingletonDuties(active:)``). A batch still consumes what is due before
    /// its facts either way, so a change is never attributed to a later fact.
    package let singletonDuties: Locked<Bool>
    /// What ``singletonDuties`` was at the last timed work, to catch up when it turns on.
    package var dutiesWereActive = true
    /// Changes appended in the open transaction by cause label, for the metrics after COMMIT.
    package var appendedChanges: [String: Int] = [:]
    /// The facts the change recorder read after each successful write of the open batch, by
    /// user (the latest write's): the `user_facts` records are built from them before COMMIT.
    package var batchFacts: [ExactID: UserFacts] = [:]
    /// The due pass's lag in the open transaction, reported after COMMIT.
    package var pendingDueLagSeconds: Double?
    /// The earliest due instant of any head, refreshed after every commit: the timer's alarm.
    package var nextDueMs: Int64?
    /// When the background prune runs next (monotonic); it also wakes the writer.
    package var nextPruneAt = ContinuousClock.now
    /// When the next chunk of the baseline for users who predate the change log runs
    /// (``ChangeRecorder/recordBaseline(nowMs:limit:)``); `nil` once none remain.
    package var baselineDueAt: ContinuousClock.Instant? = ContinuousClock.now
    /// Where callers queue their writes (``SQLStore/submit(_:)``), and the thread this runs on.
    private let executor: WriterExecutor<WriteJob<DB>>
    /// Whether ``endOfRound()`` has run: the first one reads the earliest due instant.
    private var hasRun = false
    /// Set by ``close()``: the connection is closed and every later write is refused.
    package private(set) var isClosed = false
    /// Whether the file takes writes (see ``WriterHealth``); read by the store's readiness.
    package let health: WriterHealth
    /// When a failing writer next probes its file (``probeFileWhileFailing()``).
    var nextFileProbeAt = ContinuousClock.now

    package init(db: DB, recorder: FactsRecorder<DB>, changes: ChangeRecorder<DB>, changeLog: ChangeLogSettings,
         cache: FactsCache, readers: ReaderPool<DB>, statistics: Locked<StoreStatistics>,
         singletonDuties: Locked<Bool>, executor: WriterExecutor<WriteJob<DB>>, maxBatchSize: Int,
         onCommit: (@Sendable (Int, Double) -> Void)? = nil, publish: Publish? = nil,
         health: WriterHealth = WriterHealth()) throws {
        writeSavepoint = try SQLSavepoint(db, name: "fact_write")
        self.health = health
        self.onCommit = onCommit
        self.publish = publish
        self.db = db
        self.recorder = recorder
        self.changes = changes
        self.changeLog = changeLog
        self.singletonDuties = singletonDuties
        self.executor = executor
        self.cache = cache
        self.readers = readers
        self.statistics = statistics
        self.maxBatchSize = maxBatchSize
    }

    /// A store dropped without ``close()`` still closes its connections (nothing is queued then:
    /// every queued call holds the store, and the store holds its writer).
    deinit {
        close()
    }

    /// Commits every write queued so far, a batch of at most `maxBatchSize` at a time.
    private func commitQueued() {
        while true {
            let batch = executor.takeWork(limit: maxBatchSize)
            if batch.isEmpty { return }
            commit(batch)
        }
    }

    /// Before work that runs between batches with the connection to itself (a seed, due changes,
    /// a prune, a connection job): commits the writes queued before it.
    package func betweenBatches() throws {
        guard !isClosed else { throw StoreError.closedStore }
        commitQueued()
    }

    /// The executor's thread, after a round of jobs: commits the writes queued (one batch; more
    /// wait for the next round), runs the timed work that is due, and answers how long it may
    /// wait for the next job or write (nil: until one comes).
    package func endOfRound() -> Int64? {
        guard !isClosed else { return nil }
        if !hasRun {
            hasRun = true
            refreshNextDue()
        }
        letCallersJoinTheBatch()
        commit(executor.takeWork(limit: maxBatchSize))
        runTimedWork()
        probeFileWhileFailing()
        let timedWork = millisecondsUntilTimedWork()
        return millisecondsUntilFileProbe().map { min($0, timedWork) } ?? timedWork
    }

    /// Yields the writer's core once before a batch that has writes and room left: threads runnable there
    /// (callers still verifying or decoding the writes they are about to queue) run first and
    /// their writes join this batch instead of waiting for the next commit.
    ///
    /// Where the writer shares a busy core, that is what keeps batches large: without it a
    /// woken writer commits the one or two writes queued so far, and each commit's fixed cost
    /// (~0.2 ms of CPU: BEGIN, the due pass, the records, COMMIT's WAL write and fsync) comes
    /// out of the callers' share (V2 notifications on one core: 1.8 writes per commit and the
    /// writer at 38 % of the core, against 6.5 and 30 % with it). On an idle core sched_yield
    /// returns at once; on a busy one it costs at most one scheduler slice per batch.
    private func letCallersJoinTheBatch() {
        let queued = executor.pendingJobs
        if queued > 0 && queued < maxBatchSize { sched_yield() }
    }

    /// Commits what is queued, then closes every connection (SQLite checkpoints its WAL when the
    /// writer's connection closes last); later writes are refused. Later calls do nothing.
    package func close() {
        guard !isClosed else { return }
        executor.closeInbox()
        commitQueued()
        isClosed = true
        readers.close()
        cache.invalidateAll()
        db.close()
    }

    /// Commits `batch` (facts writes and notifications, never seeds) as one transaction.
    private func commit(_ batch: [WriteJob<DB>], retryingLostConnection: Bool = DB.isSharedByReplicas,
                        isolatingEachWrite: Bool = false) {
        guard !batch.isEmpty else { return }
        // A ROLLBACK that failed after an earlier failure (an I/O error) would make every later
        // BEGIN fail with "cannot start a transaction within a transaction"; try it again here.
        db.rollbackIgnoringErrors()
        // Lookups a failed attempt sent ahead read rows it rolled back.
        recorder.dropPrefetches()
        recorder.firstStagesAhead = []
        // Read transactions idle readers kept open would hold this commit's checkpoint back.
        readers.endIdleSnapshots()
        // Before BEGIN: another writer's commit heard of after this is possibly a later one.
        let otherWritersMark = DB.isSharedByReplicas ? cache.otherWritersMark : nil
        // Each job's answer, held until COMMIT and cache invalidation are done.
        var answers: [() -> Void] = []
        var affected = UsersInFirstSeenOrder()
        var applied = 0
        /// The users whose own write (a ``FactsWrite``) succeeded: their callers read them next.
        var writingUsers = Set<ExactID>()
        var committed = false
        let started = ContinuousClock.now
        appendedChanges = [:]
        pendingDueLagSeconds = nil
        batchFacts = [:]
        recorder.rollupBefore = [:]
        recorder.batchNames = []
        do {
            try db.transaction(beginning: DB.beginWrite) {
                // Time first: a change that was due before these facts arrived is not theirs.
                try recordDueChanges()
                answers = try batch.indices.map { index in
                    let job = batch[index]
                    // Without savepoints a failure reruns the whole batch, so the next writes'
                    // first reads may go ahead (``prefetchLookups(of:)``, notifications ahead).
                    let following = isolatingEachWrite ? batch[batch.endIndex...] : batch[(index + 1)...]
                    var jobAffected = Set<ExactID>()
                    let answer = try record(job, affectedUsers: &jobAffected, isolated: isolatingEachWrite,
                                            following: following)
                    if answer.succeeded {
                        affected.add(jobAffected)
                        applied += 1
                        if case let .write(write, _) = job { writingUsers.insert(ExactID(write.userID)) }
                    }
                    return answer.resume
                }
                if !isolatingEachWrite { try readUnisolatedResults() }
                try recorder.applyRollup()
                try recorder.refreshRecords(for: affected.inOrder, known: batchFacts)
                try publishCommit(users: affected.inOrder.map(\.text))
            }
            committed = true
        } catch is WriteFailedWithoutSavepoint {
            // Rolled back whole: again, each write in its own savepoint.
            commit(batch, retryingLostConnection: retryingLostConnection, isolatingEachWrite: true)
            return
        } catch {
            if batch.count > 1 {
                for job in batch { commit([job], retryingLostConnection: retryingLostConnection) }
                return
            }
            // A database server restarts and fails over: a write alone that met a dropped
            // connection gets one more try on the reconnected one before its caller hears of it.
            if retryingLostConnection, let failure = error as? any SQLFailure, failure.isTransient {
                commit(batch, retryingLostConnection: false)
                return
            }
            noteFailure(error)
            let failure = StoreError.storage(error, "storing the write")
            answers = [{ Self.fail(batch[0], failure) }]
        }
        if committed {
            recorder.rememberCommittedNames()
            health.recover()
            statistics.withLock { counters in
                counters.commits += 1
                counters.appliedWrites += applied
            }
            if let onCommit {
                let elapsed = ContinuousClock.now - started
                onCommit(batch.count, elapsed.inSeconds)
            }
        }
        if committed {
            refreshCache(for: affected.inOrder, inserting: writingUsers, unlessOtherWritersSince: otherWritersMark)
        } else {
            cache.invalidate(affected.inOrder.lazy.map(\.text))
        }
        if committed { changesCommitted() }
        for answer in answers { answer() }
    }

    /// Gives the cache the committed facts of `users` (``batchFacts``, read after each user's
    /// last change in the batch: what their `user_facts` records were just built from, so what a
    /// read after COMMIT returns) instead of dropping them; a user without such facts is
    /// invalidated. `inserting`: users whose callers read them next, cached even when absent.
    ///
    /// With replicas on a shared database another one may commit to the same user between this
    /// COMMIT and the refresh, and its invalidation could arrive first: `otherWritersMark` (read
    /// before BEGIN, nil on an engine with one writer) makes the cache drop such users instead.
    ///
    /// Measured (callgrind, distinct SubmitReceipt calls): the answer's read after the write
    /// was a cache miss, ~48k instructions (a reader, the record's query and decode); on
    /// PostgreSQL two round trips on a pooled connection (docs/storage.md).
    private func refreshCache(for users: [ExactID], inserting: Set<ExactID>,
                              unlessOtherWritersSince otherWritersMark: UInt64?) {
        for user in users {
            if let facts = batchFacts[user] {
                cache.refresh(facts, for: user.text, insertingIfAbsent: inserting.contains(user),
                              unlessOtherWritersSince: otherWritersMark)
            } else {
                cache.invalidate(CollectionOfOne(user.text))
            }
        }
    }

    /// The changes the job just recorded made, derived in its savepoint so they commit or
    /// roll back with it; the users' facts read for it go into `facts`.
    private func recordChanges(of users: Set<ExactID>, facts: inout [ExactID: UserFacts]) throws -> Int {
        defer { recorder.addedEvents = [] }
        return try changes.recordChanges(of: users, nowMs: changeLog.clock(), addedEvents: { recorder.addedEvents },
                                         readFacts: &facts, knownRows: recorder.writeUserRows)
    }

    /// Keeps the facts a write that committed to its savepoint left its users with (a failed
    /// write's were rolled back with it, so they are dropped).
    private func keep(_ facts: [ExactID: UserFacts], if succeeded: Bool) {
        guard succeeded else { return }
        batchFacts.merge(facts) { _, newer in newer }
        recorder.keepWriteNames()
    }

    /// Records one job, `isolated` in its own savepoint; returns whether it succeeded and how to
    /// answer it.
    ///
    /// Throws (aborting the batch) when the write failed for a reason that is not its own, see
    /// ``abortsBatch(_:)``, or failed at all when not `isolated`.
    private func record(_ job: WriteJob<DB>, affectedUsers: inout Set<ExactID>, isolated: Bool,
                        following: ArraySlice<WriteJob<DB>> = []) throws
        -> (succeeded: Bool, resume: () -> Void) {
        let next = following.first
        recorder.addedEvents = []
        recorder.namesStoredThisWrite.removeAll(keepingCapacity: true)
        recorder.writeUserRows.removeAll(keepingCapacity: true)
        // A write that threw after keeping rows for its list insert left them there; a grant or
        // revocation next would send them into its own savepoint, naming rows rolled back.
        recorder.rowLists = .init()
        switch job {
        case let .write(write, continuation):
            var appended = 0
            var facts: [ExactID: UserFacts] = [:]
            let answer = try answer(continuation, failing: "recording facts", isolated: isolated) {
                let outcome = try recorder.recordLeavingResultsUnread(write, affectedUsers: &affectedUsers)
                try prefetchLookups(of: next)
                appended = try recordChanges(of: affectedUsers, facts: &facts)
                return outcome
            }
            keep(facts, if: answer.succeeded)
            if answer.succeeded { appendedChanges[write.source.rawValue, default: 0] += appended }
            return answer
        case let .notification(notification, continuation):
            var appended = 0
            var facts: [ExactID: UserFacts] = [:]
            let answer = try answer(continuation, failing: "recording a notification", isolated: isolated) {
                let stage = recorder.takeFirstStage(for: notification)
                let ahead = stage == nil ? notificationsAhead(of: notification, following: following) : []
                let outcome = try recorder.applyLeavingResultsUnread(notification, affectedUsers: &affectedUsers,
                                                                     stage: stage, ahead: ahead)
                try prefetchLookups(of: next)
                appended = try recordChanges(of: affectedUsers, facts: &facts)
                return outcome
            }
            keep(facts, if: answer.succeeded)
            if answer.succeeded { appendedChanges[notification.source.rawValue, default: 0] += appended }
            return answer
        case let .grant(write, continuation):
            return try recordGrantJob(continuation, affectedUsers: &affectedUsers, isolated: isolated) {
                try recorder.record(write, affectedUsers: &$0)
            }
        case let .revokeGrant(revocation, continuation):
            return try recordGrantJob(continuation, affectedUsers: &affectedUsers, isolated: isolated) {
                try recorder.revoke(revocation, affectedUsers: &$0)
            }
        case let .webhooks(write, continuation):
            return try answer(continuation, failing: "recording webhook deliveries", isolated: isolated) {
                let outcome = try WebhookOutboxRecorder(db: db).apply(write)
                return { outcome }
            }
        }
    }

    /// A grant or revocation with the change it makes, as ``record(_:affectedUsers:isolated:)``
    /// records a facts write.
    private func recordGrantJob(
        _ continuation: CheckedContinuation<Grant, any Error>, affectedUsers: inout Set<ExactID>, isolated: Bool,
        _ body: (inout Set<ExactID>) throws -> Grant
    ) throws -> (succeeded: Bool, resume: () -> Void) {
        var appended = 0
        var facts: [ExactID: UserFacts] = [:]
        var users = Set<ExactID>()
        let answer = try answer(continuation, failing: "recording a grant", isolated: isolated) {
            let grant = try body(&users)
            appended = try recordChanges(of: users, facts: &facts)
            return { grant }
        }
        affectedUsers.formUnion(users)
        keep(facts, if: answer.succeeded)
        if answer.succeeded { appendedChanges[HistoryEvent.Source.operator.rawValue, default: 0] += appended }
        return answer
    }

    /// Bulk load: big transactions, no per-write savepoints; a failure fails the rest.
    ///
    /// Seeded facts derive no changes (a bulk import is not news to consumers); a seeded user's
    /// chains first appear in the change log with their next fact.
    ///
    /// Chunks already committed stay (each chunk is atomic, the whole seed is not).
    package func seed(_ writes: [FactsWrite]) throws {
        defer { cache.invalidateAll() }
        var start = 0
        while start < writes.count {
            let end = min(start + WriterLimits.seedChunkSize, writes.count)
            do {
                recorder.rollupBefore = [:]
                try db.transaction(beginning: DB.beginWrite) {
                    var affected = UsersInFirstSeenOrder()
                    for write in writes[start..<end] {
                        var written = Set<ExactID>()
                        _ = try recorder.record(write, affectedUsers: &written)
                        recorder.addedEvents = []
                        affected.add(written)
                    }
                    try recorder.applyRollup()
                    try recorder.refreshRecords(for: affected.inOrder)
                    try publish?(db, nil, nil)
                }
            } catch {
                throw StoreError.storage(error, "seeding facts")
            }
            start = end
        }
    }
}

extension Writer {
    /// Fills the daily rollup from every stored chain if the migration that created it asked
    /// to (``FactsRecorder/backfillRollupIfPending()``), in one write transaction: under the
    /// write lock, so of replicas opening together one fills it and the others find it done.
    package func backfillRollupIfPending() throws {
        try db.transaction(beginning: DB.beginWrite) {
            _ = try recorder.backfillRollupIfPending()
        }
    }
}

extension WriterLimits {
    package static let seedChunkSize = 20_000
}

@available(*, unavailable)
extension Writer: Sendable {}
