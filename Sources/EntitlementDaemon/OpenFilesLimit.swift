/// What to do with the open-files limit so `--max-connections` can be reached.
///
/// Every connection is a descriptor. The usual soft limit is 1,024 while the default
/// `--max-connections` is 10,000, so without raising it the server would refuse connections
/// (accept fails with EMFILE) long before its own limit. The soft limit can be raised up to
/// the hard limit without privileges; past that, only the operator can help (systemd's
/// `LimitNOFILE`, `ulimit -Hn`). A pure rule, tested by a table.
enum OpenFilesLimit {
    enum Plan: Equatable {
        /// The soft limit already covers what is needed.
        case keep
        /// Set the soft limit to `soft`; `sufficient` is false when the hard limit stopped it
        /// short of what is needed.
        case raise(soft: UInt64, sufficient: Bool)
        /// The hard limit is not above the soft one: nothing can be done from inside.
        case insufficient
    }

    /// `hard` may be `RLIM_INFINITY` (UInt64.max).
    static func plan(soft: UInt64, hard: UInt64, needed: UInt64) -> Plan {
        if soft >= needed { return .keep }
        let target = min(hard, needed)
        guard target > soft else { return .insufficient }
        return .raise(soft: target, sufficient: target >= needed)
    }

    /// Descriptors the server may hold at once: each client connection, the calls to Apple in
    /// flight, and a margin for the listeners, the loops' epoll and event descriptors, SQLite's
    /// database, WAL and shared-memory files per connection, and logs.
    static func needed(maxConnections: Int, appleConcurrency: Int) -> UInt64 {
        UInt64(max(0, maxConnections) + max(0, appleConcurrency) + 256)
    }
}
