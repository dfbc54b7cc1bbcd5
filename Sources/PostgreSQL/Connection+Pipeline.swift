internal import CPostgreSQL

/// Deferred statements: libpq's pipeline mode for a transaction's writes whose answers the
/// caller does not need before its next statement.
///
/// Why: every statement run one by one costs a round trip, and a round trip costs two wake-ups
/// (the server's backend, then this thread) besides the work. On a busy machine the wake-ups
/// dominate: measured under a group commit of ~50 writes, ~30 statements per write took
/// ~0.4 ms each while the server spent ~0.05 ms executing them. A deferred statement is sent
/// without waiting; its result is read, with every other pending one, when the connection next
/// needs an answer (a query, an undeferred statement, COMMIT, ``flushDeferred()``): one sync,
/// one wait, for all of them.
///
/// Only inside a transaction block, so nothing outside one is acknowledged unsent. A deferred
/// statement that fails makes the server skip the rest of the pipeline; the failure is thrown
/// by the call that flushed it and by every later call until ROLLBACK (or ROLLBACK TO a
/// savepoint) clears it, so a failure swallowed by a `try?` can never reach a COMMIT.
extension Connection {
    /// A statement sent in pipeline mode whose result is not read yet.
    struct Deferred {
        let sql: String
        let changed: ((Int) -> Void)?
        /// A query sent by ``prefetch(_:)``, with the run it belongs to: its rows go to it.
        var query: (statement: Statement, run: Int)?
    }

    /// Sends `statement` (bound, returning rows) without waiting, inside a transaction: its next
    /// ``Statement/step()`` reads the rows once the pipeline is read, instead of a round trip
    /// of its own. Does nothing outside a transaction, for a statement not yet prepared in this
    /// session (the step runs it) or for a run already sent. Binding a different value before
    /// that step drops the prefetched run; a run never stepped must be reset before the rows
    /// could be stale (its caller's job).
    public func prefetch(_ statement: Statement) throws(PostgreSQLError) {
        if deferred.isEmpty { try flushDeferred() }
        guard deferred.isEmpty ? PQtransactionStatus(handle) == PQTRANS_INTRANS : true,
              let name = statement.preparedName(in: session), statement.result == nil, !statement.awaitsPipeline
        else { return }
        try send(statement, name: name)
        deferred.append(Deferred(sql: statement.sql, changed: nil, query: (statement, statement.run)))
        statement.awaitsPipeline = true
        statement.isPrefetched = true
    }

    /// Sends `statement` (which returns no rows) without waiting, inside a transaction; runs it
    /// at once when the connection is outside one or has not prepared it yet in this session.
    /// `changed` gets its changed-row count when its result is read; it must not use the
    /// connection.
    public func executeDeferred(_ statement: Statement, then changed: ((Int) -> Void)?)
        throws(PostgreSQLError) {
        if deferred.isEmpty { try flushDeferred() }
        guard deferred.isEmpty ? PQtransactionStatus(handle) == PQTRANS_INTRANS : true,
              let name = statement.preparedName(in: session) else {
            try statement.execute()
            changed?(changedRows)
            return
        }
        defer { statement.reset() }
        try send(statement, name: name)
        deferred.append(Deferred(sql: statement.sql, changed: changed))
    }

    private func send(_ statement: Statement, name: String) throws(PostgreSQLError) {
        if deferred.isEmpty && PQenterPipelineMode(handle) != 1 {
            throw lostInPipeline("entering pipeline mode")
        }
        let sent = statement.withParameterArrays { values, lengths, formats in
            PQsendQueryPrepared(handle, name, Int32(values.count), values, lengths, formats, 1)
        }
        guard sent == 1 else {
            // Nothing of it reached the server's queue: read what did, then report.
            let failure = lostInPipeline("sending a deferred statement")
            try? flushDeferred()
            pipelineFailure = pipelineFailure ?? failure
            throw failure
        }
    }

    /// Reads the results of every deferred statement (one sync, one wait) and leaves pipeline
    /// mode; throws the first failure among them (see the extension's documentation).
    public func flushDeferred() throws(PostgreSQLError) {
        if deferred.isEmpty {
            guard let failure = pipelineFailure else { return }
            let status = PQtransactionStatus(handle)
            if status == PQTRANS_INTRANS || status == PQTRANS_INERROR { throw failure }
            // Its transaction is gone (ended, or lost with the connection): so is the failure.
            pipelineFailure = nil
            return
        }
        let pending = deferred
        deferred = []
        var failure: PostgreSQLError?
        waits += 1
        if PQpipelineSync(handle) != 1 { failure = lostInPipeline("sending the pipeline's sync") }
        for statement in pending {
            statement.query?.statement.awaitsPipeline = false
            // Each statement's results end with NULL; a skipped one answers PIPELINE_ABORTED.
            while let result = PQgetResult(handle) {
                var kept = false
                defer { if !kept { PQclear(result) } }
                guard failure == nil, PQresultStatus(result) != PGRES_PIPELINE_ABORTED else { continue }
                do {
                    try check(result, sql: statement.sql)
                    recordChanges(result)
                    statement.changed?(changedRows)
                    if let query = statement.query, query.statement.run == query.run, query.statement.result == nil {
                        kept = query.statement.adopt(result)
                    }
                } catch {
                    failure = error
                }
            }
        }
        // The sync's own result, then idle again (unless the connection broke on the way).
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if PQexitPipelineMode(handle) != 1 || PQstatus(handle) != CONNECTION_OK {
            failure = failure ?? lostInPipeline("reading the pipeline's results")
        }
        if let failure {
            pipelineFailure = failure
            throw failure
        }
    }

    /// Before ROLLBACK or ROLLBACK TO: the results are read, their failure dropped (the
    /// rollback is what answers it).
    func flushForRollback() {
        try? flushDeferred()
        pipelineFailure = nil
    }

    private func lostInPipeline(_ what: String) -> PostgreSQLError {
        let message = String(cString: PQerrorMessage(handle)).trimmed
        return PostgreSQLError(kind: PQstatus(handle) == CONNECTION_OK ? .other : .connectionLost, sqlState: nil,
                               message: "\(what): \(message.isEmpty ? "libpq refused" : message)")
    }
}
