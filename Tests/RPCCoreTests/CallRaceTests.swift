import Dispatch
@testable import RPCCore
import Synchronization
import TestSupport
import XCTest

/// ``CallRace`` and ``DeadlineTimer``: one delivery per call, from whichever of the handler and
/// the deadline comes first; the deadline cancels the task; a call that ends first leaves no
/// deadline behind in the timer. Each test has its own timer, so its pending count is its own.
final class CallRaceTests: XCTestCase {
    final class Deliveries: Sendable {
        let outcomes = Mutex<[String]>([])
        let semaphore = DispatchSemaphore(value: 0)
        func record(_ outcome: Result<Int, any Error>) {
            let text: String
            switch outcome {
            case .success(let value): text = "ok \(value)"
            case .failure(let error as RPCError): text = "status \(error.code.rawValue)"
            case .failure(let error): text = "error \(error)"
            }
            outcomes.withLock { $0.append(text) }
            semaphore.signal()
        }
        func waitForOne() -> Bool { semaphore.wait(timeout: .now() + 10) == .success }
        var all: [String] { outcomes.withLock { $0 } }
    }

    func testAHandlerFinishingFirstIsDeliveredOnceAndTakesItsDeadlineOut() async {
        let timer = DeadlineTimer()
        let deliveries = Deliveries()
        let race = CallRace<Int>(peerReset: PeerReset(deadline: nil), timer: timer) { deliveries.record($0) }
        let started = DispatchSemaphore(value: 0)
        let task = Task {
            started.wait()
            await race.run { 42 }
        }
        race.arm(deadline: .now + .seconds(60), cancelling: task)
        XCTAssertEqual(timer.pendingCount, 1)
        started.signal()
        await task.value
        XCTAssertEqual(deliveries.all, ["ok 42"])
        XCTAssertEqual(timer.pendingCount, 0, "the call's end took its deadline out of the timer")
    }

    func testArmingAfterTheHandlerEndedSchedulesNothing() async {
        let timer = DeadlineTimer()
        let deliveries = Deliveries()
        let race = CallRace<Int>(peerReset: PeerReset(deadline: nil), timer: timer) { deliveries.record($0) }
        let task = Task { await race.run { 7 } }
        await task.value
        race.arm(deadline: .now + .seconds(60), cancelling: task)
        XCTAssertEqual(timer.pendingCount, 0)
        XCTAssertEqual(deliveries.all, ["ok 7"])
    }

    func testTheDeadlineAnswersAHandlerThatIgnoresCancellationAndCancelsItsTask() async {
        let timer = DeadlineTimer()
        let deliveries = Deliveries()
        let release = DispatchSemaphore(value: 0)
        let sawCancellation = Atomic<Bool>(false)
        let race = CallRace<Int>(peerReset: PeerReset(deadline: nil), timer: timer) { deliveries.record($0) }
        let task = Task {
            await race.run {
                release.wait()   // ignores cancellation until the test lets it go
                sawCancellation.store(Task.isCancelled, ordering: .relaxed)
                return 1
            }
        }
        race.arm(deadline: .now + .milliseconds(20), cancelling: task)
        XCTAssertTrue(deliveries.waitForOne(), "the deadline answers while the handler still runs")
        XCTAssertEqual(deliveries.all, ["status \(RPCCode.deadlineExceeded.rawValue)"])
        // The timer thread delivers first and cancels right after: let the handler go only once
        // the cancel has landed (or a generous bound passed), so the assertion below is about
        // whether it was cancelled, not about which thread ran first.
        let bound = ContinuousClock.now + .seconds(10)
        while !task.isCancelled, ContinuousClock.now < bound { try? await Task.sleep(for: .milliseconds(1)) }
        release.signal()
        await task.value
        XCTAssertTrue(sawCancellation.load(ordering: .relaxed), "the deadline cancelled the call's task")
        XCTAssertEqual(deliveries.all.count, 1, "the handler's late outcome is dropped")
        XCTAssertEqual(timer.pendingCount, 0)
    }

    func testAResetAfterTheDeadlineMakesTheHandlersOutcomeDeadlineExceeded() async {
        let timer = DeadlineTimer()
        let deliveries = Deliveries()
        let deadline = ContinuousClock.now - .milliseconds(1)
        let peerReset = PeerReset(deadline: deadline)
        peerReset.record()
        let race = CallRace<Int>(peerReset: peerReset, timer: timer) { deliveries.record($0) }
        await race.run { throw CancellationError() }
        XCTAssertEqual(deliveries.all, ["status \(RPCCode.deadlineExceeded.rawValue)"])
    }

    /// The timer on its own: deadlines fire in order, a cancelled one never, a past one at once,
    /// and an earlier deadline scheduled after a later one does not wait behind it.
    func testTheTimerFiresDueDeadlinesInOrderAndNeverACancelledOne() throws {
        let timer = DeadlineTimer()
        let fired = Mutex<[Int]>([])
        let now = ContinuousClock.now
        // Hundreds of milliseconds apart: the cancel must come before the cancelled one is due
        // even when a loaded machine stalls this thread.
        let late = timer.schedule(at: now + .seconds(3600)) { fired.withLock { $0.append(0) } }
        _ = timer.schedule(at: now + .milliseconds(600)) { fired.withLock { $0.append(3) } }
        let cancelled = timer.schedule(at: now + .milliseconds(300)) { fired.withLock { $0.append(9) } }
        _ = timer.schedule(at: now + .milliseconds(400)) { fired.withLock { $0.append(2) } }
        _ = timer.schedule(at: now - .seconds(1)) { fired.withLock { $0.append(1) } }
        timer.cancel(cancelled)
        try eventuallyBlocking("three deadlines fired") { fired.withLock { $0.count } == 3 }
        XCTAssertEqual(fired.withLock { $0 }, [1, 2, 3])
        XCTAssertEqual(timer.pendingCount, 1)
        timer.cancel(late)
        XCTAssertEqual(timer.pendingCount, 0)
    }

    func testMillisecondsUntilRoundsUpAndIsAtLeastOne() {
        let now = ContinuousClock.now
        let cases: [(Duration, Int64)] = [
            (.zero, 1), (.nanoseconds(-5), 1), (.nanoseconds(1), 1), (.milliseconds(1), 1),
            (.microseconds(1_001), 2), (.seconds(2), 2_000), (.milliseconds(2_500) + .nanoseconds(1), 2_501),
        ]
        for (gap, expected) in cases {
            XCTAssertEqual(DeadlineTimer.millisecondsUntil(now + gap, from: now), expected, "\(gap)")
        }
    }
}
