/// Values keyed by a connection's stream identifier (HTTP/2 stream ids; 0 for HTTP/1.1's one
/// exchange), for the per-connection tables every request passes through several times.
///
/// A `Dictionary<Int32, _>` hashes every key with SipHash: a unary call's ten inserts, lookups
/// and removals across the transport's three tables cost ~1,800 of its ~40,000 instructions.
/// Stream ids are non-negative and a connection holds at most a few hundred at once, so a
/// multiplicative hash into an open-addressed table (linear probing, at most half full,
/// backward-shift removal, so no tombstones) finds one in a few dozen instructions.
///
/// Not thread-safe; a value type like `Dictionary`, but meant to stay with one owner.
public struct StreamTable<Value> {
    @usableFromInline
    struct Slot {
        /// ``StreamTable/empty`` for a free slot.
        @usableFromInline var key: Int32
        @usableFromInline var value: Value?
        @inlinable init(key: Int32, value: Value?) { (self.key, self.value) = (key, value) }
    }

    /// Never a stream id (they are 0 or positive, at most 2^31 - 1).
    @usableFromInline static var empty: Int32 { -1 }

    /// A power of two long (or empty before the first insert).
    @usableFromInline var slots: ContiguousArray<Slot> = []
    /// 32 minus log2 of the slot count: the hash's top bits pick the slot.
    @usableFromInline var shift: UInt32 = 32
    @usableFromInline var storedCount = 0

    @inlinable public init() {}

    @inlinable public var count: Int { storedCount }

    @inlinable public var isEmpty: Bool { storedCount == 0 }

    /// Fibonacci hashing: ids that differ in any bit land apart, consecutive odd ids included.
    @inlinable func home(_ key: Int32) -> Int {
        Int(truncatingIfNeeded: (UInt32(bitPattern: key) &* 0x9E37_79B1) >> shift)
    }

    /// The slot holding `key`, or nil.
    @inlinable func index(of key: Int32) -> Int? {
        guard count > 0 else { return nil }
        let mask = slots.count - 1
        var index = home(key)
        while true {
            let found = slots[index].key
            if found == key { return index }
            if found == Self.empty { return nil }
            index = (index + 1) & mask
        }
    }

    /// The value stored for `key`; assigning nil removes it.
    @inlinable public subscript(key: Int32) -> Value? {
        get {
            guard let index = index(of: key) else { return nil }
            return slots[index].value
        }
        set {
            if let newValue { insert(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    @inlinable mutating func insert(_ value: consuming Value, forKey key: Int32) {
        precondition(key >= 0, "stream ids are never negative")
        if let index = index(of: key) {
            slots[index].value = value
            return
        }
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var index = home(key)
        while slots[index].key != Self.empty { index = (index + 1) & mask }
        slots[index] = Slot(key: key, value: value)
        storedCount += 1
    }

    /// Removes `key`'s value and returns it; nil when there was none.
    @inlinable @discardableResult
    public mutating func removeValue(forKey key: Int32) -> Value? {
        guard var hole = index(of: key) else { return nil }
        let removed = slots[hole].value.take()
        let mask = slots.count - 1
        // Backward shift: an entry further along the run moves into the hole unless its home lies
        // after the hole (moving it before its home would hide it from lookups).
        var next = (hole + 1) & mask
        while slots[next].key != Self.empty {
            let home = home(slots[next].key)
            if (next - home) & mask >= (next - hole) & mask {
                slots.swapAt(hole, next)
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot(key: Self.empty, value: nil)
        storedCount -= 1
        return removed
    }

    /// Every value, in no particular order.
    public var values: [Value] { slots.compactMap { $0.key == Self.empty ? nil : $0.value } }

    /// Empties the table and lets go of its storage.
    public mutating func removeAll() {
        slots = []
        shift = 32
        storedCount = 0
    }

    @inlinable mutating func grow() {
        let old = slots
        let capacity = Swift.max(8, old.count * 2)
        slots = ContiguousArray(repeating: Slot(key: Self.empty, value: nil), count: capacity)
        shift = 32 - UInt32(capacity.trailingZeroBitCount)
        storedCount = 0
        for slot in old where slot.key != Self.empty { insert(slot.value!, forKey: slot.key) }
    }
}
