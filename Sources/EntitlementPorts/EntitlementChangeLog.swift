import Entitlements

/// One change of a user's entitlement as CheckEntitlement would answer it.
///
/// Written in the same transaction as the fact that caused it (or, for a time-driven change,
/// by the store's own due timer), so a crash never loses or invents one.
public struct EntitlementChange: Sendable, Hashable {
    /// Global, strictly increasing, assigned at commit; the cursor encodes it.
    public var sequence: Int64
    /// Stable and unique: ``changeID(logID:sequence:)``. Webhook receivers deduplicate on it.
    public var changeID: String
    public var userID: String
    /// The entitlement as CheckEntitlement answers it at ``occurredAtMs``; for a chain the user
    /// lost to another user, ``EntitlementTransitions/withdrawn(_:)`` (state REVOKED).
    public var entitlement: Entitlement
    /// The state of the previous change of this user's chain; `nil` = first appearance
    /// (proto EntitlementState UNSPECIFIED).
    public var previousState: EntitlementState?
    /// When the answer changed: the commit of the causing fact, or a time-driven change's own
    /// instant (a period's expiry, a grace period's end), even when it was written later
    /// (the server was down then).
    public var occurredAtMs: Int64
    /// The history event behind it (ListHistory's event_id); "" for time-driven changes.
    public var causeEventID: String

    public init(sequence: Int64, changeID: String, userID: String, entitlement: Entitlement,
                previousState: EntitlementState?, occurredAtMs: Int64, causeEventID: String) {
        self.sequence = sequence
        self.changeID = changeID
        self.userID = userID
        self.entitlement = entitlement
        self.previousState = previousState
        self.occurredAtMs = occurredAtMs
        self.causeEventID = causeEventID
    }

    /// Part of the contract so every backend issues the same shape: the log's random id
    /// (chosen when the log was created) and the sequence. The log id keeps a receiver that
    /// deduplicates on change ids safe when a database is recreated and sequences restart.
    public static func changeID(logID: String, sequence: Int64) -> String {
        "\(logID)-\(sequence)"
    }
}

/// The durable change log, read side: what the stream and the webhooks deliver.
///
/// Consumers poll the log from their own cursor when woken by ``onChangesCommitted(_:)``,
/// which makes replay-then-live gap-free: the wake-up carries no data to lose.
public protocol EntitlementChangeLog: Sendable {
    /// Changes with sequence > `after`, oldest first, at most `limit` (<= 0: none), optionally
    /// for one user. Cheap: an index range, never waits for the writer.
    func changes(after sequence: Int64, userID: String?, limit: Int) throws -> [EntitlementChange]
    /// The oldest sequence still retained and the newest ever assigned (0 before the first).
    ///
    /// A cursor `c` is complete (nothing after it was pruned) iff `c >= oldestRetained - 1`;
    /// an older one is OUT_OF_RANGE. With nothing retained, `oldestRetained` is `latest + 1`.
    func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64)
    /// Called (on some store thread, must not block) after every commit that appended changes,
    /// with the newest sequence; readers then call `changes(after:)` from their own cursor.
    func onChangesCommitted(_ observer: @escaping @Sendable (Int64) -> Void)
}

/// The change log's write-side upkeep that is not caused by a fact: time and retention.
///
/// The SQLite store runs both by itself (its writer wakes at the next due instant and prunes
/// in the background); these calls exist so tests with a controllable clock, and backends
/// without a writer thread, can drive them.
public protocol EntitlementChangeUpkeep: Sendable {
    /// Writes the time-driven changes due by the store's clock (expiries, grace period ends),
    /// each at its own instant and oldest first; returns how many it wrote.
    @discardableResult
    func recordDueChanges() async throws -> Int
    /// The earliest instant at which time alone changes some entitlement; `nil` for none.
    func nextDueInstant() throws -> Int64?
    /// Deletes up to `limit` of the oldest changes that occurred before `cutoffMs`, oldest
    /// first, stopping at the first newer one (so the retained log stays one unbroken range);
    /// returns how many it deleted.
    @discardableResult
    func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) async throws -> Int
}
