import Foundation
import ServiceRuntime
import Synchronization
import XCTest

final class ServiceThreadTests: XCTestCase {
    /// join() returns only after the body ran, and the body ran on another thread.
    func testJoinWaitsForTheBody() {
        let ran = Locked<[Bool]>([])
        let caller = Thread.current
        let thread = ServiceThread.start {
            usleep(20_000)
            ran.withLock { $0.append(Thread.current != caller) }
        }
        thread.join()
        XCTAssertEqual(ran.withLock { $0 }, [true])
    }

    func testDetachedThreadRuns() {
        let done = expectation(description: "detached body ran")
        ServiceThread.detach { done.fulfill() }
        wait(for: [done], timeout: 30)
    }
}
