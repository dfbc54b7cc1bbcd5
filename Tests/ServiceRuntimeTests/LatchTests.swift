import ServiceRuntime
import XCTest

final class LatchTests: XCTestCase {
    /// Waiters that came before open() are all resumed by it; one that comes after returns at once.
    func testOpenResumesEveryWaiterAndStaysOpen() async {
        let latch = Latch()
        XCTAssertFalse(latch.isOpen)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { await latch.wait() } }
            latch.open()
            await group.waitForAll()
        }
        XCTAssertTrue(latch.isOpen)
        latch.open()  // a second open is harmless
        await latch.wait()
    }

    /// A thread blocked in waitBlocking() wakes when another thread opens the latch.
    func testBlockingWaitWakesOnOpen() {
        let latch = Latch()
        let woke = expectation(description: "blocked thread woke")
        ServiceThread.detach {
            latch.waitBlocking()
            woke.fulfill()
        }
        ServiceThread.detach { latch.open() }
        wait(for: [woke], timeout: 30)
        latch.waitBlocking()  // open already: returns at once
    }
}
