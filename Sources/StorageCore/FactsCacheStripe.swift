import Entitlements

/// One stripe of ``FactsCache``: a CLOCK ring of slots and an open-addressed index over them,
/// guarded by the stripe's lock.
///
/// The index is linear probing over slot numbers, at most half full, keyed by the hash the
/// cache computed once per call. Each position holds 32 bits of the hash beside the slot
/// number, so a probe passes positions of other users without reading their slots: over a
/// million users the slots are far apart in memory and each one read is a cache miss. Only a
/// position whose hash bits match has its slot's id bytes compared. Removal shifts later
/// entries of the probe run back (no tombstones), so a lookup's probe stops at the first
/// empty position.
package struct FactsCacheStripe: Sendable {
    private struct Slot: Sendable {
        package var userID: String
        package var hash: Int
        package var facts: UserFacts
        package var referenced: Bool
    }

    package let capacity: Int
    private(set) var generation: UInt64 = 0
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var hand = 0
    /// Per position: the hash's index bits (``indexBits(_:)``) in the high 32 bits, slot
    /// number + 1 in the low 32; 0 for empty.
    private var index: [UInt64]
    private let mask: Int

    package init(capacity: Int) {
        self.capacity = max(0, capacity)
        var size = 8
        while size < self.capacity * 2 { size <<= 1 }
        index = Array(repeating: 0, count: self.capacity > 0 ? size : 0)
        mask = size - 1
    }

    /// The user's cached facts (marking them recently used), or nil.
    package mutating func lookup(_ userID: String, hash: Int) -> UserFacts? {
        guard let position = position(of: userID, hash: hash) else { return nil }
        let slot = Self.slot(index[position])
        slots[slot].referenced = true
        return slots[slot].facts
    }

    /// The answer memo kept with the user's cached facts (marking them recently used), or nil
    /// when the user is not cached: unlike ``lookup(_:hash:)`` it retains only the memo.
    package mutating func lookupMemo(_ userID: String, hash: Int) -> CheckAnswerMemo?? {
        guard let position = position(of: userID, hash: hash) else { return nil }
        let slot = Self.slot(index[position])
        slots[slot].referenced = true
        return .some(slots[slot].facts.checkAnswers)
    }

    package mutating func insert(_ facts: UserFacts, for userID: String, hash: Int, ifGeneration expected: UInt64) {
        guard capacity > 0, generation == expected else { return }
        place(facts, for: userID, hash: hash)
    }

    /// Puts the facts a commit left the user with in the user's slot, bumping the generation as
    /// ``remove(_:hash:)`` does; a user not cached is added only when `insertingIfAbsent`.
    package mutating func refresh(_ facts: UserFacts, for userID: String, hash: Int, insertingIfAbsent: Bool) {
        generation &+= 1
        guard capacity > 0, insertingIfAbsent || position(of: userID, hash: hash) != nil else { return }
        place(facts, for: userID, hash: hash)
    }

    /// Puts `facts` in the user's slot, or a free or evicted one.
    private mutating func place(_ facts: UserFacts, for userID: String, hash: Int) {
        if let position = position(of: userID, hash: hash) {
            slots[Self.slot(index[position])].facts = facts
            return
        }
        let entry = Slot(userID: userID, hash: hash, facts: facts, referenced: false)
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
        var position = home(hash)
        while index[position] != 0 { position = (position + 1) & mask }
        index[position] = UInt64(Self.indexBits(hash)) << 32 | UInt64(slot + 1)
    }

    package mutating func remove(_ userID: String, hash: Int) {
        generation &+= 1
        guard let position = position(of: userID, hash: hash) else { return }
        let slot = Self.slot(index[position])
        erase(at: position)
        slots[slot].facts = UserFacts()
        slots[slot].referenced = false
        freeSlots.append(slot)
    }

    package mutating func removeAll() {
        generation &+= 1
        slots.removeAll()
        freeSlots.removeAll()
        hand = 0
        for position in index.indices { index[position] = 0 }
    }

    /// The hash's bits above the stripe's (the cache picks the stripe with the low six),
    /// kept in the index; a position's home is the low bits of these.
    private static func indexBits(_ hash: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt(bitPattern: hash) >> 6)
    }

    private static func slot(_ entry: UInt64) -> Int {
        Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
    }

    private func home(_ hash: Int) -> Int {
        Int(Self.indexBits(hash)) & mask
    }

    private func home(entry: UInt64) -> Int {
        Int(truncatingIfNeeded: entry >> 32) & mask
    }

    /// The index position of `userID`'s slot, or nil. Ends: the index is never more than half full.
    private func position(of userID: String, hash: Int) -> Int? {
        guard capacity > 0 else { return nil }
        let bits = UInt64(Self.indexBits(hash))
        var position = home(hash)
        while index[position] != 0 {
            let entry = index[position]
            if entry >> 32 == bits {
                let slot = Self.slot(entry)
                if slots[slot].hash == hash, CachedID.sameBytes(slots[slot].userID, userID) { return position }
            }
            position = (position + 1) & mask
        }
        return nil
    }

    /// Empties `position`, moving each later entry of its probe run whose home is not between
    /// the hole and the entry back into the hole, so every entry stays reachable from its home.
    private mutating func erase(at position: Int) {
        var hole = position
        var next = (position + 1) & mask
        while index[next] != 0 {
            let wanted = home(entry: index[next])
            let reachable = hole < next ? (wanted > hole && wanted <= next) : (wanted > hole || wanted <= next)
            if !reachable {
                index[hole] = index[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        index[hole] = 0
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
        if let position = position(of: slots[victim].userID, hash: slots[victim].hash) { erase(at: position) }
        return victim
    }
}
