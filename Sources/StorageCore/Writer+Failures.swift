import EntitlementPorts
import SQLDatabase

/// How the writer answers a write that failed, and which failures abort a whole batch.
extension Writer {
    /// Runs `body`, `isolated` in its own savepoint, and says how to answer its caller; rethrows
    /// (aborting the batch) a failure that is not the write's own (``abortsBatch(_:)``). Not
    /// isolated, the write's own failure cannot be undone alone: it aborts the batch as
    /// ``WriteFailedWithoutSavepoint``, and the batch runs again isolating each write.
    /// `body` returns its outcome as a closure run once its deferred results are read.
    package func answer<Outcome: Sendable>(
        _ continuation: CheckedContinuation<Outcome, any Error>, failing what: String, isolated: Bool,
        _ body: () throws -> () -> Outcome
    ) throws -> (succeeded: Bool, resume: () -> Void) {
        guard isolated else {
            // Not waited for: any failure among its results, read with a later write's or by
            // ``readUnisolatedResults()``, reruns the whole batch isolated, and no caller is
            // answered before COMMIT, when every result has been read.
            do {
                let outcome = try body()
                return (true, { continuation.resume(returning: outcome()) })
            } catch {
                throw abortsBatch(error) ? error : WriteFailedWithoutSavepoint()
            }
        }
        // Its deferred statements' results are read before it counts as done, so their failure
        // is this write's, inside its savepoint (``SQLConnection/executeDeferred(_:then:)``).
        func recorded() throws -> Outcome {
            let outcome = try body()
            try db.flushDeferred()
            return outcome()
        }
        let result = Result { try writeSavepoint.run(recorded) }
        if case let .failure(error) = result, abortsBatch(error) { throw error }
        let answer = result.mapError { StoreError.storage($0, what) }
        return (Self.succeeded(answer), { continuation.resume(with: answer) })
    }

    /// After a batch's writes ran without savepoints: reads the results they left unread, so a
    /// failure among them counts as a write's own (the batch reruns isolated), not as COMMIT's.
    package func readUnisolatedResults() throws {
        do {
            try db.flushDeferred()
        } catch {
            throw abortsBatch(error) ? error : WriteFailedWithoutSavepoint()
        }
    }

    /// Whether a write's failure must abort its whole batch: anything but the write's own fault
    /// (a ``StoreError`` from the recorder, a constraint), or any failure after which SQLite no
    /// longer has the transaction open (it rolls back on its own after some SQLITE_FULL and
    /// SQLITE_IOERR failures; the next SAVEPOINT would then start and RELEASE commit a
    /// transaction of its own, outside the batch).
    package func abortsBatch(_ error: any Error) -> Bool {
        guard db.isInTransaction else { return true }
        if error is StoreError { return false }
        if let error = error as? any SQLFailure, error.isConstraintViolation { return false }
        return true
    }

    package static func succeeded<Success>(_ result: Result<Success, StoreError>) -> Bool {
        if case .success = result { return true }
        return false
    }

    package static func fail(_ job: WriteJob<DB>, _ error: StoreError) {
        switch job {
        case let .write(_, continuation): continuation.resume(throwing: error)
        case let .notification(_, continuation): continuation.resume(throwing: error)
        case let .webhooks(_, continuation): continuation.resume(throwing: error)
        case let .grant(_, continuation): continuation.resume(throwing: error)
        case let .revokeGrant(_, continuation): continuation.resume(throwing: error)
        }
    }
}

/// A write of a batch run without savepoints failed on its own account: the batch is rolled
/// back and runs again with a savepoint per write (see ``Writer``).
package struct WriteFailedWithoutSavepoint: Error {}
