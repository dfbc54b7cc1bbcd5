import AppStoreSimulator
import SeededRandom
import Synchronization
import TestSupport
import XCTest

/// The delivery planner as a pure function of a seeded generator, and the sender's ordering.
final class DeliveryTests: XCTestCase {
    func testInOrderWithoutDuplicatesIsTheBatch() {
        var generator = SplitMix64(seed: 1)
        let plan = DeliveryPlanner(order: .inOrder, duplicateRate: 0).plan(count: 20, using: &generator)
        XCTAssertEqual(plan.map(\.index), Array(0..<20))
        XCTAssertTrue(plan.allSatisfy { !$0.isDuplicate && $0.delayMs == 0 })
    }

    func testDuplicateRateOneDeliversEachTwiceRightAfterItself() {
        var generator = SplitMix64(seed: 2)
        let plan = DeliveryPlanner(order: .inOrder, duplicateRate: 1).plan(count: 5, using: &generator)
        XCTAssertEqual(plan.map(\.index), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
        XCTAssertEqual(plan.map(\.isDuplicate), Array(repeating: [false, true], count: 5).flatMap { $0 })
    }

    func testDuplicateRateIsRoughlyHonoured() {
        var generator = SplitMix64(seed: 3)
        let plan = DeliveryPlanner(order: .inOrder, duplicateRate: 0.25).plan(count: 4000, using: &generator)
        let duplicates = plan.filter(\.isDuplicate).count
        XCTAssertTrue((850...1150).contains(duplicates), "\(duplicates) duplicates of 4000 at 0.25")
    }

    func testShuffledIsAPermutationSortedByDelay() {
        var generator = SplitMix64(seed: 4)
        let plan = DeliveryPlanner(order: .shuffled, duplicateRate: 0.5, maxDelayMs: 1000).plan(
            count: 30, using: &generator)
        XCTAssertEqual(Set(plan.map(\.index)), Set(0..<30), "every notification is delivered")
        XCTAssertEqual(plan.filter { !$0.isDuplicate }.count, 30, "each exactly once as an original")
        XCTAssertNotEqual(plan.filter { !$0.isDuplicate }.map(\.index), Array(0..<30), "out of order")
        XCTAssertEqual(plan.map(\.delayMs), plan.map(\.delayMs).sorted())
        XCTAssertTrue(plan.allSatisfy { (0..<1000).contains($0.delayMs) })
    }

    func testSameSeedSamePlan() {
        let planner = DeliveryPlanner(order: .shuffled, duplicateRate: 0.3)
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        var c = SplitMix64(seed: 43)
        XCTAssertEqual(planner.plan(count: 50, using: &a), planner.plan(count: 50, using: &b))
        XCTAssertNotEqual(planner.plan(count: 50, using: &a), planner.plan(count: 50, using: &c))
    }

    func testInOrderSenderPostsBatchesInSubmissionOrder() async throws {
        let poster = RecordingPoster()
        let delivery = WebhookDelivery(
            poster: poster, planner: DeliveryPlanner(order: .inOrder, duplicateRate: 0), seed: 7)
        for index in 0..<50 {
            delivery.submit([.init(label: "n", notificationUUID: "\(index)", body: Array("\(index)".utf8))])
        }
        try await eventually("every notification delivered") { delivery.pending == 0 }
        XCTAssertEqual(poster.bodies, (0..<50).map { "\($0)" })
        XCTAssertEqual(delivery.recentDeliveries.map(\.httpStatus), Array(repeating: 200, count: 50))
    }
}

/// A webhook that answers 200 after a random pause, so an ordering bug would show.
final class RecordingPoster: WebhookPoster {
    private let received = Mutex<[String]>([])

    func post(_ body: [UInt8]) async -> Int? {
        try? await Task.sleep(for: .microseconds(Int.random(in: 0..<500)))
        received.withLock { $0.append(String(decoding: body, as: UTF8.self)) }
        return 200
    }

    var bodies: [String] { received.withLock { $0 } }
}
