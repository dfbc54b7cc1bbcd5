import ServiceRuntime
import Synchronization
import TestSupport
import XCTest

final class FairSemaphoreTests: XCTestCase {
    func testNeverMoreThanPermitsAtOnce() async throws {
        let semaphore = FairSemaphore(permits: 4)
        let running = Locked((now: 0, peak: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await semaphore.withPermit {
                        running.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                        try await Task.sleep(for: .milliseconds(5))
                        running.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(running.withLock { $0.peak }, 4)
        XCTAssertEqual(semaphore.queued, 0)
    }

    func testWaitersAreServedInArrivalOrder() async throws {
        let semaphore = FairSemaphore(permits: 1)
        try await semaphore.acquire()
        let order = Locked<[Int]>([])
        var tasks: [Task<Void, any Error>] = []
        for i in 0..<5 {
            tasks.append(Task {
                try await semaphore.acquire()
                order.withLock { $0.append(i) }
                semaphore.release()
            })
            try await eventually("waiter \(i) queued") { semaphore.queued >= i + 1 }
        }
        semaphore.release()
        for task in tasks { try await task.value }
        XCTAssertEqual(order.withLock { $0 }, [0, 1, 2, 3, 4])
    }

    func testCancelledWaiterLeavesTheQueueAndTakesNoPermit() async throws {
        let semaphore = FairSemaphore(permits: 1)
        try await semaphore.acquire()
        let waiter = Task { try await semaphore.acquire() }
        try await eventually("the waiter queued") { semaphore.queued >= 1 }
        waiter.cancel()
        do {
            try await waiter.value
            XCTFail("a cancelled waiter must not get a permit")
        } catch is CancellationError {}
        XCTAssertEqual(semaphore.queued, 0)
        semaphore.release()
        // The permit released above is free again: acquiring does not block.
        try await semaphore.acquire()
    }
}
