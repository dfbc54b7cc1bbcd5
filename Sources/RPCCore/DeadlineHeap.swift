/// The pending deadlines of ``DeadlineTimer``: a binary min-heap by instant (then by order of
/// scheduling) whose entries know their own position, so a call that ends before its deadline
/// takes its entry out in O(log n) instead of leaving it to linger until the deadline.
///
/// Not thread-safe; the timer holds it under its lock. A value type, so its rules are tested on
/// their own (`DeadlineHeapTests`).
struct DeadlineHeap {
    /// One scheduled deadline; `position` is its index in the heap, `nil` once out of it.
    final class Entry: @unchecked Sendable {
        let deadline: ContinuousClock.Instant
        let sequence: UInt64
        /// What firing does; taken (set to nil) when the entry fires or is cancelled.
        var action: (@Sendable () -> Void)?
        fileprivate(set) var position: Int?

        init(deadline: ContinuousClock.Instant, sequence: UInt64, action: @escaping @Sendable () -> Void) {
            self.deadline = deadline
            self.sequence = sequence
            self.action = action
        }

        fileprivate func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []

    var count: Int { entries.count }
    /// The entry due first, if any.
    var earliest: Entry? { entries.first }

    mutating func insert(_ entry: Entry) {
        precondition(entry.position == nil, "an entry is scheduled once")
        entries.append(entry)
        entry.position = entries.count - 1
        siftUp(entries.count - 1)
    }

    /// Takes `entry` out; false when it is not in the heap (fired or removed already).
    @discardableResult
    mutating func remove(_ entry: Entry) -> Bool {
        guard let index = entry.position, index < entries.count, entries[index] === entry else { return false }
        let last = entries.count - 1
        if index != last {
            entries.swapAt(index, last)
            entries[index].position = index
        }
        entries.removeLast()
        entry.position = nil
        if index < entries.count {
            siftDown(index)
            siftUp(index)
        }
        return true
    }

    /// Takes out every entry whose deadline is at or before `now`, earliest first.
    mutating func removeDue(now: ContinuousClock.Instant) -> [Entry] {
        var due: [Entry] = []
        while let first = entries.first, first.deadline <= now {
            remove(first)
            due.append(first)
        }
        return due
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { return }
            exchange(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < entries.count, entries[left].precedes(entries[first]) { first = left }
            if right < entries.count, entries[right].precedes(entries[first]) { first = right }
            guard first != parent else { return }
            exchange(parent, first)
            parent = first
        }
    }

    private mutating func exchange(_ a: Int, _ b: Int) {
        entries.swapAt(a, b)
        entries[a].position = a
        entries[b].position = b
    }
}
