import SeededRandom
@testable import RPCCore
import XCTest

/// ``DeadlineHeap`` against a plain sorted list: the same entries due in the same order after
/// any mix of inserts, removals (of pending, fired and already removed entries) and firings.
final class DeadlineHeapTests: XCTestCase {
    typealias Entry = DeadlineHeap.Entry

    func testRandomOperationsAgreeWithASortedList() {
        var generator = SplitMix64(seed: 14)
        let base = ContinuousClock.now
        var heap = DeadlineHeap()
        var model: [Entry] = []   // pending, in firing order
        var everyEntry: [Entry] = []
        var sequence: UInt64 = 0
        var now = base
        func inModelOrder(_ a: Entry, _ b: Entry) -> Bool {
            a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
        }
        for step in 0..<6_000 {
            switch generator.next() % 10 {
            case 0...4:
                sequence += 1
                // Few distinct instants, so equal deadlines (ordered by sequence) are common.
                let deadline = now + .milliseconds(Int64(generator.next() % 40))
                let entry = Entry(deadline: deadline, sequence: sequence, action: {})
                heap.insert(entry)
                model.append(entry)
                model.sort(by: inModelOrder)
                everyEntry.append(entry)
            case 5...7:
                guard !everyEntry.isEmpty else { continue }
                let entry = everyEntry[Int(generator.next() % UInt64(everyEntry.count))]
                let wasPending = model.contains { $0 === entry }
                XCTAssertEqual(heap.remove(entry), wasPending, "step \(step)")
                model.removeAll { $0 === entry }
            default:
                now += .milliseconds(Int64(generator.next() % 8))
                let due = heap.removeDue(now: now)
                let expected = model.prefix { $0.deadline <= now }
                XCTAssertTrue(due.elementsEqual(expected, by: ===), "step \(step): due entries and order")
                model.removeFirst(expected.count)
            }
            XCTAssertEqual(heap.count, model.count, "step \(step)")
            XCTAssertTrue(heap.earliest === model.first, "step \(step): earliest")
        }
    }

    func testAnEntryLeavesOnceAndForgetsItsPlace() {
        let now = ContinuousClock.now
        var heap = DeadlineHeap()
        let entries = (0..<5).map {
            Entry(deadline: now + .milliseconds(Int64(5 - $0)), sequence: UInt64($0), action: {})
        }
        entries.forEach { heap.insert($0) }
        XCTAssertTrue(heap.earliest === entries[4])
        XCTAssertTrue(heap.remove(entries[4]))
        XCTAssertFalse(heap.remove(entries[4]), "a second removal finds nothing")
        XCTAssertNil(entries[4].position)
        XCTAssertTrue(heap.earliest === entries[3])
        XCTAssertTrue(heap.removeDue(now: now + .milliseconds(3)).elementsEqual([entries[3], entries[2]], by: ===))
        XCTAssertFalse(heap.remove(entries[2]), "a fired entry is out of the heap")
        XCTAssertEqual(heap.count, 2)
    }
}
