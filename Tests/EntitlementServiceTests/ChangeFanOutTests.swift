import EntitlementAPI
@testable import EntitlementService
import Entitlements
import TestSupport
import XCTest

/// WatchEntitlementChanges over a scripted change log: replay then live with no gap and no
/// duplicate, the user filter, cursor errors, a slow watcher ended alone, cancellation and
/// shutdown freeing watchers.
final class ChangeFanOutTests: XCTestCase {
    func liveCount(_ harness: WatchHarness) -> Int {
        harness.fanOut.state.withLock { $0.live.values.reduce(0) { $0 + $1.count } }
    }

    func started(_ pageSize: Int = 512, maxBufferedStreamBytes: Int = 256 * 1024) throws -> WatchHarness {
        let harness = try WatchHarness(pageSize: pageSize, maxBufferedStreamBytes: maxBufferedStreamBytes)
        try harness.fanOut.start()
        addTeardownBlock { harness.fanOut.shutdown() }
        return harness
    }

    func testEmptyCursorStreamsOnlyChangesFromNowOnInOrder() async throws {
        let harness = try started()
        harness.log.append(user: "old", .active)
        let watcher = harness.watch()
        try await eventually("live") { liveCount(harness) == 1 }
        harness.log.append(user: "u1", .active)
        harness.log.append(user: "u1", .gracePeriod, previous: .active)
        harness.log.append(user: "u1", .revoked, previous: .gracePeriod)
        try await eventually("three changes") { watcher.messages.count == 3 }
        XCTAssertEqual(watcher.sequences, [2, 3, 4])
        XCTAssertEqual(watcher.messages.map(\.previousState), [.unspecified, .active, .gracePeriod])
        XCTAssertEqual(watcher.messages.map { $0.entitlement?.state }, [.active, .gracePeriod, .revoked])
        XCTAssertEqual(watcher.messages.map(\.causeEventID), ["ev-2", "ev-3", "ev-4"])
        XCTAssertEqual(watcher.messages[0].cursor, "c1.0000000000000002")
        XCTAssertNil(watcher.status, "the stream stays open")
        XCTAssertEqual(harness.fanOut.watchersConnected, 1)
    }

    /// Commits with nobody watching move the fan-out's position without a single log read; a
    /// watcher that comes later replays them all and then gets the live ones.
    func testCommitsWithNobodyLiveAreNotReadByTheFanOut() async throws {
        let harness = try started(2)
        for _ in 0..<7 { harness.log.append(user: "u", .active) }
        try await eventually("position at the newest") { harness.fanOut.state.withLock { $0.position } == 7 }
        XCTAssertEqual(harness.log.state.withLock { $0.reads }, 0)
        let watcher = harness.watch(after: ChangeCursor.encode(2))
        try await eventually("live") { liveCount(harness) == 1 }
        for _ in 0..<3 { harness.log.append(user: "u", .active) }
        try await eventually("every change after 2") { watcher.messages.count >= 8 }
        try await Task.sleep(for: .milliseconds(50))
        XCTAssertEqual(watcher.sequences, Array(3...10))
    }

    /// Pages of 2 and commits racing the replay: the seam must neither skip nor repeat.
    func testResumeReplaysThenJoinsLiveWithNoGapAndNoDuplicate() async throws {
        let harness = try started(2)
        for _ in 0..<9 { harness.log.append(user: "u", .active) }
        let watcher = harness.watch(after: ChangeCursor.encode(3))
        for _ in 0..<30 { harness.log.append(user: "u", .active) }
        try await eventually("live") { liveCount(harness) == 1 }
        for _ in 0..<5 { harness.log.append(user: "u", .active) }
        try await eventually("every change after 3") { watcher.messages.count >= 41 }
        try await Task.sleep(for: .milliseconds(50))
        XCTAssertEqual(watcher.sequences, Array(4...44))
    }

    func testUserFilterDeliversOnlyThatUsersChangesInReplayAndLive() async throws {
        let harness = try started(2)
        for i in 0..<6 { harness.log.append(user: i % 2 == 0 ? "a" : "b", .active) }
        let watcher = harness.watch(after: ChangeCursor.encode(0), user: "b")
        try await eventually("live") { liveCount(harness) == 1 }
        harness.log.append(user: "a", .expired)
        harness.log.append(user: "b", .expired)
        try await eventually("four of b's") { watcher.messages.count == 4 }
        XCTAssertEqual(watcher.sequences, [2, 4, 6, 8])
        XCTAssertEqual(Set(watcher.messages.map(\.userID)), ["b"])
    }

    func testCursorErrors() async throws {
        let harness = try started()
        for _ in 0..<5 { harness.log.append(user: "u", .active) }
        harness.log.prune(through: 3)
        let cases: [(String, String, String)] = [
            ("bogus", "3", "not a cursor this server issued"),
            ("c1.00000000000000zz", "3", "not a cursor"),
            (ChangeCursor.encode(2), "11", "older than the server's change retention"),
            (ChangeCursor.encode(9), "11", "ahead of this server's change log"),
        ]
        for (cursor, code, text) in cases {
            let watcher = harness.watch(after: cursor)
            try await eventually("ended") { watcher.status != nil }
            XCTAssertEqual(watcher.status?.code, code, cursor)
            XCTAssertTrue(watcher.status?.message.contains(text) == true, "\(cursor): \(watcher.status!.message)")
        }
        let atEdge = harness.watch(after: ChangeCursor.encode(3))
        try await eventually("replayed") { atEdge.sequences == [4, 5] }
        XCTAssertNil(atEdge.status, "the newest pruned change's cursor is still a valid start")
    }

    func testSlowWatcherIsEndedWithResourceExhaustedAndOthersGetEverything() async throws {
        let harness = try started(maxBufferedStreamBytes: 2_000)
        let slow = harness.watch(reading: false)
        let fast = harness.watch()
        try await eventually("both live") { liveCount(harness) == 2 }
        for _ in 0..<40 { harness.log.append(user: "u", .active) }
        try await eventually("fast got all") { fast.messages.count == 40 }
        try await eventually("slow ended") { slow.status != nil }
        XCTAssertEqual(slow.status?.code, "8")
        XCTAssertTrue(slow.status!.message.contains("the client is not reading"), slow.status!.message)
        XCTAssertLessThanOrEqual(slow.state.withLock { $0.buffered }, 2_000, "never more than the bound")
        try await eventually("slow freed") { harness.fanOut.watchersConnected == 1 }
        XCTAssertNil(fast.status)
    }

    func testReplayWaitsForTheClientToReadInsteadOfFailing() async throws {
        let harness = try started(16, maxBufferedStreamBytes: 2_000)
        for _ in 0..<100 { harness.log.append(user: "u", .active) }
        let watcher = harness.watch(after: ChangeCursor.encode(0), reading: false)
        try await eventually("buffer filled") { watcher.messages.count > 5 }
        try await Task.sleep(for: .milliseconds(50))
        XCTAssertNil(watcher.status, "a replay waits for room")
        watcher.startReading()
        try await eventually("all replayed") { watcher.messages.count == 100 }
        XCTAssertEqual(watcher.sequences, Array(1...100))
    }

    func testCancelledWatcherIsFreed() async throws {
        let harness = try started()
        let watcher = harness.watch()
        try await eventually("live") { liveCount(harness) == 1 }
        watcher.cancel()
        try await eventually("freed") { harness.fanOut.watchersConnected == 0 && liveCount(harness) == 0 }
    }

    func testDeadlineEndsTheStreamWithDeadlineExceeded() async throws {
        let harness = try started()
        let watcher = harness.watch(timeout: "200m")
        try await eventually("ended") { watcher.status != nil }
        XCTAssertEqual(watcher.status?.code, "4")
        try await eventually("freed") { harness.fanOut.watchersConnected == 0 }
    }

    func testShutdownEndsEveryWatcherWithUnavailableAndRefusesNewOnes() async throws {
        let harness = try WatchHarness()
        try harness.fanOut.start()
        let live = harness.watch()
        for _ in 0..<3 { harness.log.append(user: "u", .active) }
        let replaying = harness.watch(after: ChangeCursor.encode(0), reading: false)
        try await eventually("both registered") { harness.fanOut.watchersConnected == 2 }
        harness.fanOut.shutdown()
        for watcher in [live, replaying] {
            try await eventually("ended") { watcher.status != nil }
            XCTAssertEqual(watcher.status?.code, "14")
            XCTAssertTrue(watcher.status!.message.contains("shutting down"))
        }
        let late = harness.watch()
        try await eventually("refused") { late.status != nil }
        XCTAssertEqual(late.status?.code, "14")
        await harness.fanOut.run()  // returns: the thread stopped
    }
}
