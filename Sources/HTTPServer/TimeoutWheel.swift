/// Something a ``TimeoutWheel`` can file: the wheel keeps the member's place in the member
/// itself, so filing and removing cost no hashing.
protocol TimeoutWheelMember: AnyObject {
    /// The tick the member is filed under, or -1 when it is not filed.
    var timeoutTick: Int { get set }
    /// The member's index in its slot.
    var timeoutIndex: Int { get set }
}

/// Members filed by when they next need a timeout check, in ticks, so a loop's periodic check
/// touches only the members due instead of walking all of them.
///
/// An event loop holding 10,000 mostly idle connections used to check every one of them twice
/// a second: a 10–16 ms stall on its one thread every 500 ms, which every request arriving in it
/// waited out (the 10k-connection benchmark's p99). Filed by deadline, an idle connection is
/// looked at about once per idle timeout instead. Deadlines are coarse (a member comes due at
/// the first tick boundary at or after its deadline), which is all a timeout needs.
///
/// A hashed wheel of `slotCount` slots, one per tick: a deadline further out than the wheel
/// reaches is filed at its far end, and the member is simply checked there and filed again.
/// Owned by one thread.
struct TimeoutWheel<Member: TimeoutWheelMember> {
    let tick: Duration
    let origin: ContinuousClock.Instant
    private let tickNanoseconds: Int64
    private var slots: [[Member]]
    /// Every tick up to this one has been taken by ``takeDue(now:into:)``.
    private(set) var processedTick: Int
    /// When the next tick comes due: ``takeDue(now:into:)`` has work from this instant on.
    private(set) var nextDue: ContinuousClock.Instant
    private(set) var count = 0

    init(tick: Duration, slotCount: Int, origin: ContinuousClock.Instant) {
        precondition(tick > .zero && slotCount > 1, "a wheel needs a positive tick and more than one slot")
        self.tick = tick
        self.origin = origin
        tickNanoseconds = Self.nanoseconds(tick)
        slots = Array(repeating: [], count: slotCount)
        processedTick = 0
        nextDue = origin + tick
    }

    /// Files `member` for a check at `deadline` (moving it if it was filed): in the past or
    /// within this tick means the next tick; beyond the wheel's reach means its far end.
    mutating func file(_ member: Member, at deadline: ContinuousClock.Instant) {
        place(member, tick: clampedTick(for: deadline))
    }

    /// Files `member` at `deadline` only when that is sooner than where it is filed: for a state
    /// change that brings a timeout closer (a request head started, a stream opened, a drain).
    mutating func fileEarlier(_ member: Member, at deadline: ContinuousClock.Instant) {
        fileEarlier(member, tick: clampedTick(for: deadline))
    }

    /// Files `member` for the next tick unless it is filed for that one already.
    mutating func fileForNextTick(_ member: Member) {
        fileEarlier(member, tick: processedTick + 1)
    }

    private mutating func fileEarlier(_ member: Member, tick: Int) {
        guard member.timeoutTick < 0 || tick < member.timeoutTick else { return }
        place(member, tick: tick)
    }

    /// Takes `member` out of the wheel; nothing happens when it is not filed.
    mutating func remove(_ member: Member) {
        let tick = member.timeoutTick
        guard tick >= 0 else { return }
        let slot = tick % slots.count
        let index = member.timeoutIndex
        let last = slots[slot].removeLast()
        if index < slots[slot].count {
            slots[slot][index] = last
            last.timeoutIndex = index
        }
        member.timeoutTick = -1
        count -= 1
    }

    /// Appends every member due at `now` to `due` and unfiles them: the caller checks each and
    /// files again the ones that stay. A clock far ahead (a stalled loop) takes each slot once.
    mutating func takeDue(now: ContinuousClock.Instant, into due: inout [Member]) {
        guard now >= nextDue else { return }
        let nowTick = Int(Self.nanoseconds(now - origin) / tickNanoseconds)
        for tick in (processedTick + 1)...min(nowTick, processedTick + slots.count) {
            let slot = tick % slots.count
            for member in slots[slot] { member.timeoutTick = -1 }
            count -= slots[slot].count
            due.append(contentsOf: slots[slot])
            slots[slot].removeAll(keepingCapacity: true)
        }
        processedTick = nowTick
        nextDue = origin + tick * (nowTick + 1)
    }

    /// The first tick whose start is at or after `deadline`, kept within the ticks not yet taken
    /// and the wheel's reach.
    private func clampedTick(for deadline: ContinuousClock.Instant) -> Int {
        let offset = Self.nanoseconds(deadline - origin)
        let tick = offset <= 0 ? 0 : Int((offset + tickNanoseconds - 1) / tickNanoseconds)
        return min(max(tick, processedTick + 1), processedTick + slots.count)
    }

    private mutating func place(_ member: Member, tick: Int) {
        remove(member)
        let slot = tick % slots.count
        member.timeoutTick = tick
        member.timeoutIndex = slots[slot].count
        slots[slot].append(member)
        count += 1
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
