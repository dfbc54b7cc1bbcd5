import ServiceRuntime

/// Whether the writer can write the database file now: set when a write failed because the
/// file or its disk did (``SQLDatabase/SQLFailure/isFileFailure``), cleared by the next commit.
///
/// Readiness reads it (``SQLStore/readiness``): a replica whose disk is full or failing answers
/// every write with UNAVAILABLE, and a balancer should send its traffic elsewhere until it
/// recovers. The writer probes while it is set (``Writer/probeFileWhileFailing()``), so it
/// clears by itself when space returns, without waiting for a caller's write.
package final class WriterHealth: Sendable {
    private let failure = Locked<String?>(nil)

    package init() {}

    /// Why writes fail now, or nil.
    package var failureReason: String? { failure.withLock { $0 } }

    package func fail(_ reason: String) { failure.withLock { $0 = reason } }

    package func recover() {
        failure.withLock { if $0 != nil { $0 = nil } }
    }
}
