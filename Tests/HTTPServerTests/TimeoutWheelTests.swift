import SeededRandom
@testable import HTTPServer
import Testing

/// The event loop's ``TimeoutWheel``: a member comes due at the first tick at or after its
/// deadline, never before it and never twice, and only the members due are handed out.
struct TimeoutWheelTests {
    final class Member: TimeoutWheelMember {
        let name: String
        var timeoutTick = -1
        var timeoutIndex = 0
        init(_ name: String) { self.name = name }
    }

    static let origin = ContinuousClock.now
    static func at(_ ms: Int) -> ContinuousClock.Instant { origin + .milliseconds(ms) }
    static func wheel(slots: Int = 8) -> TimeoutWheel<Member> {
        TimeoutWheel(tick: .milliseconds(500), slotCount: slots, origin: origin)
    }

    static func takeDue(_ wheel: inout TimeoutWheel<Member>, atMs ms: Int) -> [String] {
        var due: [Member] = []
        wheel.takeDue(now: at(ms), into: &due)
        return due.map(\.name).sorted()
    }

    /// Deadline (ms after the origin) → the first tick (ms) at which it is handed out, with
    /// 500 ms ticks and 8 slots (a 4 s reach).
    static let dueTable: [(deadlineMs: Int, dueAtMs: Int)] = [
        (-3_000, 500),  // in the past: the next tick
        (0, 500),  // the tick already started counts as taken
        (1, 500),
        (499, 500),
        (500, 500),  // exactly on a tick
        (501, 1_000),
        (1_200, 1_500),
        (3_999, 4_000),
        (4_000, 4_000),  // the wheel's far end
        (4_001, 4_000),  // beyond the reach: the far end, to be checked and filed again
        (60_000, 4_000),
    ]

    @Test(arguments: dueTable)
    func aMemberComesDueAtTheFirstTickAtOrAfterItsDeadline(deadlineMs: Int, dueAtMs: Int) {
        var wheel = Self.wheel()
        let member = Member("m")
        wheel.file(member, at: Self.at(deadlineMs))
        #expect(wheel.count == 1)
        var tickMs = 500
        while tickMs < dueAtMs {
            #expect(Self.takeDue(&wheel, atMs: tickMs).isEmpty, "due at \(tickMs) ms, before its tick")
            tickMs += 500
        }
        #expect(Self.takeDue(&wheel, atMs: dueAtMs) == ["m"])
        #expect(member.timeoutTick == -1 && wheel.count == 0)
        #expect(Self.takeDue(&wheel, atMs: dueAtMs + 4_000).isEmpty, "handed out twice")
    }

    @Test func nothingIsDueBeforeTheNextTickAndALateCallTakesEveryTickItMissed() {
        var wheel = Self.wheel()
        let members = (0..<4).map { Member("m\($0)") }
        for (i, member) in members.enumerated() { wheel.file(member, at: Self.at(500 * (i + 1))) }
        #expect(wheel.nextDue == Self.at(500))
        #expect(Self.takeDue(&wheel, atMs: 499).isEmpty)
        #expect(Self.takeDue(&wheel, atMs: 1_700) == ["m0", "m1", "m2"])
        #expect(wheel.nextDue == Self.at(2_000))
        #expect(Self.takeDue(&wheel, atMs: 1_900).isEmpty)
        // A loop that stalled past the whole wheel still hands out each member once.
        #expect(Self.takeDue(&wheel, atMs: 60_000) == ["m3"])
        #expect(wheel.nextDue == Self.at(60_500))
    }

    @Test func filingAgainMovesAMemberAndFileEarlierOnlyMovesItSooner() {
        var wheel = Self.wheel()
        let member = Member("m")
        wheel.file(member, at: Self.at(3_000))
        wheel.fileEarlier(member, at: Self.at(3_500))  // later: stays at 3 s
        #expect(Self.takeDue(&wheel, atMs: 2_500).isEmpty)
        wheel.fileEarlier(member, at: Self.at(2_700))  // sooner: moves
        #expect(Self.takeDue(&wheel, atMs: 3_000) == ["m"])
        wheel.file(member, at: Self.at(3_100))
        wheel.file(member, at: Self.at(4_600))  // file moves it later too
        #expect(wheel.count == 1)
        #expect(Self.takeDue(&wheel, atMs: 4_000).isEmpty)
        wheel.fileForNextTick(member)
        #expect(Self.takeDue(&wheel, atMs: 4_500) == ["m"])
        wheel.fileForNextTick(member)  // unfiled: filed for the next tick
        #expect(Self.takeDue(&wheel, atMs: 5_000) == ["m"])
    }

    @Test func removingKeepsEveryOtherMemberInPlace() {
        var wheel = Self.wheel()
        let members = (0..<5).map { Member("m\($0)") }
        for member in members { wheel.file(member, at: Self.at(1_000)) }
        wheel.remove(members[1])  // the last one moves into its place
        wheel.remove(members[4])  // ... and can still be found there
        wheel.remove(members[1])  // not filed: nothing happens
        #expect(wheel.count == 3)
        #expect(Self.takeDue(&wheel, atMs: 1_000) == ["m0", "m2", "m3"])
    }

    /// Random filing, moving and removing against a plain list of deadlines: each step hands out
    /// exactly the members whose deadline is at or before the tick that started last (a deadline
    /// already past when filed counts from the next tick, one past the wheel's reach from its far
    /// end), and each member once.
    @Test func randomOperationsMatchAListOfDeadlines() {
        var generator = SplitMix64(seed: 14)
        var wheel = Self.wheel(slots: 16)
        let members = (0..<64).map { Member("m\($0)") }
        var dueAt: [String: Int] = [:]  // ms: when each filed member should be handed out
        var nowMs = 0
        var handedOut = 0
        for _ in 0..<4_000 {
            let member = members[Int(generator.next() % 64)]
            switch generator.next() % 4 {
            case 0, 1:
                let deadline = nowMs + Int(generator.next() % 12_000) - 1_000  // some past the 8 s reach
                wheel.file(member, at: Self.at(deadline))
                // Never sooner than the next tick, never later than the wheel's far end.
                let (next, farEnd) = ((wheel.processedTick + 1) * 500, (wheel.processedTick + 16) * 500)
                dueAt[member.name] = max(min(deadline, farEnd), next)
            case 2:
                wheel.remove(member)
                dueAt[member.name] = nil
            default:
                nowMs += Int(generator.next() % 1_500)
                let due = Self.takeDue(&wheel, atMs: nowMs)
                let tickStart = nowMs / 500 * 500
                #expect(due == dueAt.filter { $0.value <= tickStart }.keys.sorted(), "at \(nowMs) ms")
                for name in due { dueAt[name] = nil }
                handedOut += due.count
            }
            #expect(wheel.count == dueAt.count)
        }
        #expect(handedOut > 500)
    }
}
