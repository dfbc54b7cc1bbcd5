import Entitlements
import ServiceRuntime
import StorageTables
import Synchronization

/// A bounded, lock-striped, read-through cache of ``UserFacts`` per user.
///
/// Readers on many event-loop threads hit different stripes, so they rarely contend. A hit
/// costs one hash of the id's bytes (which picks the stripe and the index position both), one
/// uncontended lock, a byte comparison and a retain. Each stripe evicts with CLOCK (second
/// chance): one bit set on a hit, cleared by the sweeping hand, so eviction is O(1) amortized
/// and frequently read users stay. Unknown users are cached as empty facts.
///
/// Users are told apart by their bytes, as the store tells them apart: `zo\u{EB}` and
/// `zoe\u{308}` are two users with two entries (a `String`-keyed index would merge them).
///
/// Freshness: the writer calls ``invalidate(_:)`` (or ``refresh(_:for:insertingIfAbsent:)``
/// with the facts it committed) after commit and before answering callers, which bumps the
/// stripe's generation. A reader that missed records the generation before it
/// starts its SQLite read and only inserts if it is unchanged, so a load that may predate a
/// commit can never overwrite the invalidation with stale facts.
package final class FactsCache: Sendable {
    /// A lookup's answer: the facts, or what to hand back to ``insert(_:for:after:)``.
    package enum Lookup {
        case hit(UserFacts)
        case miss(Miss)
    }

    /// ``lookupMemo(_:)``'s answer.
    package enum MemoLookup {
        case hit(CheckAnswerMemo?)
        case miss(Miss)
    }

    /// A missed user's hash and the stripe's generation when the lookup missed: the insert
    /// goes to that stripe and index position without hashing the user id again.
    package struct Miss {
        fileprivate let hash: Int
        fileprivate let generation: UInt64
    }

    private static let stripeCount = 64
    /// Bumped first thing in every ``invalidate(_:)``, ``refresh(_:for:insertingIfAbsent:)``
    /// and ``invalidateAll()``, the writer's calls after each COMMIT and before any caller is
    /// resumed: a read transaction that facts reads keep open (``StoreReader``) is reused only
    /// while the epoch it began under is current, so no read that follows an acknowledged write
    /// is answered from a snapshot older than that write.
    private let epochCounter = Atomic<UInt64>(0)

    /// The current epoch (see `epochCounter`); read after the lookup that missed.
    package var epoch: UInt64 { epochCounter.load(ordering: .acquiring) }
    /// Bumped before every invalidation that another writer's commit causes (a replica's
    /// NOTIFY, or the listener losing them): the writer refreshes a user only when none came in
    /// since before its transaction began (``refresh(_:for:insertingIfAbsent:unlessOtherWritersSince:)``).
    private let otherWritersCounter = Atomic<UInt64>(0)

    /// The count of other writers' invalidations so far; the writer reads it before BEGIN.
    package var otherWritersMark: UInt64 { otherWritersCounter.load(ordering: .acquiring) }
    private let stripes: [Locked<FactsCacheStripe>]
    private let hashID: @Sendable (String) -> Int

    /// `capacity` is the number of users kept, within ~10%; 0 disables caching.
    ///
    /// Users hash unevenly onto stripes, so an exact `capacity / 64` per stripe overflows about
    /// half of them even when the working set equals the capacity, and an overflowing CLOCK
    /// stripe re-read in order misses every time (measured: 50% hits re-reading 100,000 users
    /// with capacity 100,000). Each stripe gets 10% and a few slots of headroom instead.
    package convenience init(capacity: Int) {
        self.init(capacity: capacity, hashID: { CachedID.hash($0) })
    }

    /// `hashID` must give equal hashes for equal bytes; the tests pass colliding ones. The
    /// default is the process's seeded SipHash of the bytes, so callers cannot choose user ids
    /// that pile onto one probe sequence.
    package init(capacity: Int, hashID: @escaping @Sendable (String) -> Int) {
        let perStripe = capacity <= 0 ? 0 : capacity / Self.stripeCount + capacity / (Self.stripeCount * 10) + 16
        stripes = (0..<Self.stripeCount).map { _ in Locked(FactsCacheStripe(capacity: perStripe)) }
        self.hashID = hashID
    }

    package func lookup(_ userID: String) -> Lookup {
        let hash = hashID(userID)
        return stripe(hash).withLock { state in
            if let facts = state.lookup(userID, hash: hash) { return .hit(facts) }
            return .miss(Miss(hash: hash, generation: state.generation))
        }
    }

    /// Like ``lookup(_:)``, but a hit hands back only the answer memo kept with the facts
    /// (``KeptAnswersOrFacts``): nil inside `.hit` only for facts cached without one.
    package func lookupMemo(_ userID: String) -> MemoLookup {
        let hash = hashID(userID)
        return stripe(hash).withLock { state in
            if let memo = state.lookupMemo(userID, hash: hash) { return .hit(memo) }
            return .miss(Miss(hash: hash, generation: state.generation))
        }
    }

    /// Caches `facts`, read after `miss`, unless the user's stripe was invalidated since.
    ///
    /// Cached facts carry a ``CheckAnswerMemo`` (made here, outside the lock): the answers
    /// judged from them are kept with them and leave with them, on eviction, invalidation or
    /// refresh.
    package func insert(_ facts: UserFacts, for userID: String, after miss: Miss) {
        let facts = facts.withCheckAnswerMemo()
        stripe(miss.hash).withLock { $0.insert(facts, for: userID, hash: miss.hash, ifGeneration: miss.generation) }
    }

    /// Puts `facts` in the user's slot in place of what it held, as an invalidation would,
    /// when the writer has just committed them (and read them inside that transaction, so they
    /// are what a read after the commit returns). A user not cached is added only when
    /// `insertingIfAbsent`: the caller is about to read them (SubmitReceipt answers with the
    /// user's entitlements after its write), while users a notification touched are not known
    /// to be read soon and would push out users who are.
    ///
    /// Bumps the stripe's generation like ``invalidate(_:)``, so a reader that missed before the
    /// commit still cannot insert what it read then.
    ///
    /// `unlessOtherWritersSince`: on a database other writers share, the ``otherWritersMark``
    /// read before the transaction began. When another writer's invalidation has come in since,
    /// it may be for a commit after this one that it reached the slot before these facts, so
    /// the user is dropped instead. Checked under the stripe's lock, which the invalidation
    /// takes after bumping the count: one that comes in later removes these facts after them.
    package func refresh(_ facts: UserFacts, for userID: String, insertingIfAbsent: Bool,
                         unlessOtherWritersSince mark: UInt64? = nil) {
        epochCounter.add(1, ordering: .releasing)
        let facts = facts.withCheckAnswerMemo()
        let hash = hashID(userID)
        stripe(hash).withLock {
            if let mark, otherWritersCounter.load(ordering: .acquiring) != mark {
                $0.remove(userID, hash: hash)
            } else {
                $0.refresh(facts, for: userID, hash: hash, insertingIfAbsent: insertingIfAbsent)
            }
        }
    }

    package func invalidate(_ userIDs: some Sequence<String>) {
        epochCounter.add(1, ordering: .releasing)
        for userID in userIDs {
            let hash = hashID(userID)
            stripe(hash).withLock { $0.remove(userID, hash: hash) }
        }
    }

    package func invalidateAll() {
        epochCounter.add(1, ordering: .releasing)
        for stripe in stripes {
            stripe.withLock { $0.removeAll() }
        }
    }

    /// ``invalidate(_:)`` for users another writer changed (a replica's NOTIFY): counted first,
    /// so this writer's refresh of the same users after its own COMMIT drops them instead.
    package func invalidateForOtherWriter(_ userIDs: some Sequence<String>) {
        otherWritersCounter.add(1, ordering: .acquiringAndReleasing)
        invalidate(userIDs)
    }

    /// ``invalidateAll()`` when other writers' changes may have been missed (no LISTEN
    /// connection), counted as ``invalidateForOtherWriter(_:)`` is.
    package func invalidateAllForOtherWriters() {
        otherWritersCounter.add(1, ordering: .acquiringAndReleasing)
        invalidateAll()
    }

    /// The low bits pick the stripe; the stripe's index uses the bits above them.
    private func stripe(_ hash: Int) -> Locked<FactsCacheStripe> {
        stripes[Int(UInt(bitPattern: hash) % UInt(Self.stripeCount))]
    }
}
