import Entitlements
import ServiceRuntime

/// A bounded, lock-striped, read-through cache of ``UserFacts`` per user.
///
/// Readers on many event-loop threads hit different stripes, so they rarely contend; a hit
/// costs one hash, one uncontended lock and a retain. Each stripe evicts with CLOCK (second
/// chance): one bit set on a hit, cleared by the sweeping hand, so eviction is O(1) amortized
/// and frequently read users stay. Unknown users are cached as empty facts.
///
/// Freshness: the writer calls ``invalidate(_:)`` after commit and before answering callers,
/// which bumps the stripe's generation. A reader that missed records the generation before it
/// starts its SQLite read and only inserts if it is unchanged, so a load that may predate a
/// commit can never overwrite the invalidation with stale facts.
final class FactsCache: Sendable {
    /// A lookup's answer: the facts, or what to hand back to ``insert(_:for:after:)``.
    enum Lookup {
        case hit(UserFacts)
        case miss(Miss)
    }

    /// A missed user's stripe and the stripe's generation when the lookup missed: the insert
    /// goes to that stripe without hashing the user id again (a miss hashed it six times).
    struct Miss {
        fileprivate let stripe: Int
        fileprivate let generation: UInt64
    }

    private static let stripeCount = 64
    private let stripes: [Locked<StripeState>]

    /// `capacity` is the number of users kept, within ~10%; 0 disables caching.
    ///
    /// Users hash unevenly onto stripes, so an exact `capacity / 64` per stripe overflows about
    /// half of them even when the working set equals the capacity, and an overflowing CLOCK
    /// stripe re-read in order misses every time (measured: 50% hits re-reading 100,000 users
    /// with capacity 100,000). Each stripe gets 10% and a few slots of headroom instead.
    init(capacity: Int) {
        let perStripe = capacity <= 0 ? 0 : capacity / Self.stripeCount + capacity / (Self.stripeCount * 10) + 16
        stripes = (0..<Self.stripeCount).map { _ in Locked(StripeState(capacity: perStripe)) }
    }

    func lookup(_ userID: String) -> Lookup {
        let stripe = stripeIndex(for: userID)
        return stripes[stripe].withLock { state in
            if let facts = state.lookup(userID) { return .hit(facts) }
            return .miss(Miss(stripe: stripe, generation: state.generation))
        }
    }

    /// Caches `facts`, read after `miss`, unless the user's stripe was invalidated since.
    func insert(_ facts: UserFacts, for userID: String, after miss: Miss) {
        stripes[miss.stripe].withLock { $0.insert(facts, for: userID, ifGeneration: miss.generation) }
    }

    func invalidate(_ userIDs: some Sequence<String>) {
        for userID in userIDs {
            stripe(for: userID).withLock { $0.remove(userID) }
        }
    }

    func invalidateAll() {
        for stripe in stripes {
            stripe.withLock { $0.removeAll() }
        }
    }

    private func stripe(for userID: String) -> Locked<StripeState> {
        stripes[stripeIndex(for: userID)]
    }

    private func stripeIndex(for userID: String) -> Int {
        Int(UInt(bitPattern: userID.hashValue) % UInt(Self.stripeCount))
    }
}

/// One stripe's CLOCK ring; guarded by its own lock.
private struct StripeState: Sendable {
    struct Slot: Sendable {
        var userID: String
        var facts: UserFacts
        var referenced: Bool
    }

    let capacity: Int
    /// Keyed by String, whose equality is Unicode canonical equivalence: `zo\u{EB}` and
    /// `zoe\u{308}` share a key though the store keeps them as two users (it compares bytes).
    /// So a slot answers only the spelling it holds, byte for byte, and an insert for the other
    /// spelling takes the slot over; the String key keeps the hit path's hash and comparison.
    var index: [String: Int] = [:]
    var slots: [Slot] = []
    var freeSlots: [Int] = []
    var hand = 0
    var generation: UInt64 = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The user's cached facts (marking them recently used), or nil.
    mutating func lookup(_ userID: String) -> UserFacts? {
        guard let slot = index[userID], slots[slot].userID.hasSameBytes(as: userID) else { return nil }
        slots[slot].referenced = true
        return slots[slot].facts
    }

    mutating func insert(_ facts: UserFacts, for userID: String, ifGeneration expected: UInt64) {
        guard capacity > 0, generation == expected else { return }
        if let slot = index[userID] {
            slots[slot].userID = userID
            slots[slot].facts = facts
            return
        }
        let entry = Slot(userID: userID, facts: facts, referenced: false)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = entry
        } else if slots.count < capacity {
            slot = slots.count
            slots.append(entry)
        } else {
            slot = evict()
            slots[slot] = entry
        }
        index[userID] = slot
    }

    mutating func remove(_ userID: String) {
        generation &+= 1
        guard let slot = index.removeValue(forKey: userID) else { return }
        slots[slot].facts = UserFacts()
        slots[slot].referenced = false
        freeSlots.append(slot)
    }

    mutating func removeAll() {
        generation &+= 1
        index.removeAll()
        slots.removeAll()
        freeSlots.removeAll()
        hand = 0
    }

    /// Sweeps the hand past recently used slots, clearing their bit; frees the first unused one.
    /// Only called when every slot is occupied, so the sweep ends within two turns.
    private mutating func evict() -> Int {
        while slots[hand].referenced {
            slots[hand].referenced = false
            hand = (hand + 1) % slots.count
        }
        let victim = hand
        hand = (hand + 1) % slots.count
        index.removeValue(forKey: slots[victim].userID)
        return victim
    }
}
