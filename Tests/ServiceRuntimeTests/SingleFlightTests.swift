import ServiceRuntime
import Synchronization
import TestSupport
import XCTest

final class SingleFlightTests: XCTestCase {
    func testConcurrentCallersShareOneRun() async throws {
        let flight = SingleFlight<String, Int>()
        let runs = Locked(0)
        let everyoneJoined = Gate()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await flight.run("receipt") {
                        runs.withLock { $0 += 1 }
                        // Held until all 50 have joined, not for a fixed time a loaded machine
                        // could outlast before the last caller arrives.
                        await everyoneJoined.wait()
                        return 42
                    }
                }
            }
            try await eventually("50 callers joined") { flight.callers(for: "receipt") == 50 }
            everyoneJoined.open()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(results, Array(repeating: 42, count: 50))
        XCTAssertEqual(runs.withLock { $0 }, 1)
        XCTAssertEqual(flight.inFlight, 0)
    }

    func testDifferentKeysRunSeparatelyAndLaterCallsRunAgain() async throws {
        let flight = SingleFlight<String, String>()
        let runs = Locked(0)
        let work: @Sendable (String) -> @Sendable () async throws -> String = { key in
            { runs.withLock { $0 += 1 }; return key.uppercased() }
        }
        async let a = flight.run("a", work("a"))
        async let b = flight.run("b", work("b"))
        let (ra, rb) = try await (a, b)
        XCTAssertEqual([ra, rb], ["A", "B"])
        _ = try await flight.run("a", work("a"))
        XCTAssertEqual(runs.withLock { $0 }, 3)
    }

    func testErrorsAreSharedToo() async {
        struct Boom: Error {}
        let flight = SingleFlight<Int, Int>()
        do {
            _ = try await flight.run(1) { throw Boom() }
            XCTFail("expected the error")
        } catch {
            XCTAssertTrue(error is Boom)
        }
    }

    func testOneCallerGivingUpDoesNotStopTheOthers() async throws {
        let flight = SingleFlight<String, Int>()
        let impatient = Task { try await flight.run("k") { try await Task.sleep(for: .milliseconds(100)); return 7 } }
        try await eventually("the impatient caller's flight") { flight.inFlight > 0 }
        let patient = Task { try await flight.run("k") { XCTFail("joined, not re-run"); return 0 } }
        try await eventually("the patient caller joined") { flight.callers(for: "k") == 2 }
        impatient.cancel()
        let value = try await patient.value
        XCTAssertEqual(value, 7)
        do {
            _ = try await impatient.value
            XCTFail("the cancelled caller should stop waiting")
        } catch is CancellationError {}
    }

    func testWorkIsCancelledWhenEveryCallerLeaves() async throws {
        let flight = SingleFlight<String, Int>()
        let sawCancellation = Locked(false)
        let caller = Task {
            try await flight.run("k") {
                do {
                    try await Task.sleep(for: .seconds(10))
                } catch {
                    sawCancellation.withLock { $0 = true }
                    throw error
                }
                return 1
            }
        }
        try await eventually("the flight began") { flight.inFlight > 0 }
        caller.cancel()
        _ = try? await caller.value
        try await eventually("the work cancelled") { sawCancellation.withLock { $0 } }
    }

    /// Issue 16: a client retrying right after its deadline met the flight its first call had
    /// abandoned (still winding down) and got CANCELLED instead of an answer.
    func testACallerArrivingWhileAbandonedWorkWindsDownGetsLiveWork() async throws {
        let flight = SingleFlight<String, Int>()
        let started = Gate(), windingDown = Gate(), released = Gate()
        let first = Task {
            try await flight.run("receipt") {
                started.open()
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    windingDown.open()
                    // An HTTP client tearing its request down: cancelled, but not finished yet.
                    await released.wait()
                    throw error
                }
                return 1
            }
        }
        await started.wait()
        first.cancel()
        await windingDown.wait()

        let secondRan = Gate()
        let second = Task { try await flight.run("receipt") { secondRan.open(); return 2 } }
        // Either it started its own work, or it sits in the dying flight: then let that end.
        try await eventually("the retry runs or joins") { secondRan.isOpen || flight.callers(for: "receipt") > 0 }
        released.open()
        let value = try await second.value
        XCTAssertEqual(value, 2, "the retry must get live work, not the abandoned flight's cancellation")
        do {
            _ = try await first.value
            XCTFail("the first caller gave up")
        } catch is CancellationError {}
    }

    func testAnAbandonedFlightIsUnlistedAtOnce() async throws {
        let flight = SingleFlight<String, Int>()
        let started = Gate(), released = Gate()
        let caller = Task {
            try await flight.run("k") {
                started.open()
                await released.wait()
                return 1
            }
        }
        await started.wait()
        XCTAssertEqual(flight.callers(for: "k"), 1)
        caller.cancel()
        _ = try? await caller.value
        XCTAssertEqual(flight.inFlight, 0, "no caller is left, so no flight may be joined")
        released.open()
    }

    func testACallerCancelledBeforeItWaitsStillCancelsTheWork() async throws {
        let flight = SingleFlight<String, Int>()
        let sawCancellation = Gate()
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await flight.run("k") {
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    sawCancellation.open()
                    throw error
                }
                return 1
            }
        }
        do {
            _ = try await caller.value
            XCTFail("a cancelled caller gets CancellationError")
        } catch is CancellationError {}
        try await eventually("the unwanted work is cancelled") { sawCancellation.isOpen }
        XCTAssertEqual(flight.inFlight, 0)
    }
}
