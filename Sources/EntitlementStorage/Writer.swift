import Entitlements
import SQLite

/// The writer thread's loop: takes queued writes, commits them as one transaction, then answers.
///
/// Confined to the writer thread once started. Group commit: while one batch commits (and
/// fsyncs), new writes queue up; the next ``WriteQueue/take(limit:)`` returns all of them, so
/// under load many callers share one BEGIN IMMEDIATE ... COMMIT and one fsync.
///
/// Failure handling: each write runs in its own savepoint, so a write that fails (an ownership
/// conflict, a constraint) is undone alone and answered with its error while the rest of the
/// batch commits. If BEGIN or COMMIT fails (disk full, I/O error, lock timeout), nothing in the
/// batch is durable: each write is retried alone in its own transaction, and only those that
/// fail again get the error. The cache is invalidated for affected users after COMMIT and
/// before any caller is resumed, which is what makes an acknowledged write visible to reads.
final class Writer: @unchecked Sendable {
    private let db: Connection
    private let recorder: FactsRecorder
    private let queue: WriteQueue
    private let cache: FactsCache
    private let readers: ReaderPool
    private let maxBatchSize: Int
    private static let seedChunkSize = 20_000

    init(db: Connection, recorder: FactsRecorder, queue: WriteQueue, cache: FactsCache,
         readers: ReaderPool, maxBatchSize: Int) {
        self.db = db
        self.recorder = recorder
        self.queue = queue
        self.cache = cache
        self.readers = readers
        self.maxBatchSize = maxBatchSize
    }

    /// Runs until the queue is closed and drained, then closes every connection.
    func run() {
        while let jobs = queue.take(limit: maxBatchSize) {
            var batch: [(FactsWrite, CheckedContinuation<WriteOutcome, any Error>)] = []
            for job in jobs {
                switch job {
                case let .write(write, continuation):
                    batch.append((write, continuation))
                case let .seed(writes, continuation):
                    commit(batch)
                    batch.removeAll()
                    continuation.resume(with: Result { try seed(writes) })
                }
            }
            commit(batch)
        }
        readers.close()
        cache.invalidateAll()
        // Closing the writer last lets SQLite checkpoint the WAL into the database file.
        db.close()
        queue.markFinished()
    }

    private func commit(_ batch: [(FactsWrite, CheckedContinuation<WriteOutcome, any Error>)]) {
        guard !batch.isEmpty else { return }
        var results: [Result<WriteOutcome, any Error>] = []
        var affectedUsers = Set<String>()
        do {
            try db.transaction(.immediate) {
                results = batch.map { write, _ in
                    var affected = Set<String>()
                    let result = Result {
                        try db.savepoint("fact_write") {
                            try recorder.record(write, affectedUsers: &affected)
                        }
                    }
                    if case .success = result { affectedUsers.formUnion(affected) }
                    return result.mapError { StoreError.storage($0, "recording facts") }
                }
            }
        } catch {
            if batch.count > 1 {
                for entry in batch { commit([entry]) }
                return
            }
            results = [.failure(StoreError.storage(error, "committing facts"))]
        }
        cache.invalidate(affectedUsers)
        for ((_, continuation), result) in zip(batch, results) {
            continuation.resume(with: result)
        }
    }

    /// Bulk load: big transactions, no per-write savepoints; a failure fails the rest.
    ///
    /// Chunks already committed stay (each chunk is atomic, the whole seed is not).
    private func seed(_ writes: [FactsWrite]) throws {
        defer { cache.invalidateAll() }
        var start = 0
        while start < writes.count {
            let end = min(start + Self.seedChunkSize, writes.count)
            do {
                try db.transaction(.immediate) {
                    var ignored = Set<String>()
                    for write in writes[start..<end] {
                        _ = try recorder.record(write, affectedUsers: &ignored)
                    }
                }
            } catch {
                throw StoreError.storage(error, "seeding facts")
            }
            start = end
        }
    }
}
