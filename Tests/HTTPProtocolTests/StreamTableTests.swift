import HTTPCore
import SeededRandom
import XCTest

/// The transport's stream tables must answer exactly as a `Dictionary` would, whatever order
/// streams open and close in: removal shifts entries back, and one shifted wrongly would hide
/// a live stream (its answer never sent) or find a closed one.
final class StreamTableTests: XCTestCase {

    func testRandomOpensAndClosesAgreeWithADictionary() {
        // Client streams (odd, rising) as h2load sends them, small and wide key ranges (wide ones
        // collide in a small table and wrap around its end), and HTTP/1.1's 0.
        for keyRange in [0...40, 0...2_000_000, 1...1] as [ClosedRange<Int32>] {
            var generator = SplitMix64(seed: UInt64(keyRange.upperBound))
            var table = StreamTable<Int>()
            var model: [Int32: Int] = [:]
            for step in 0..<20_000 {
                let key = Int32.random(in: keyRange, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0, 1:
                    table[key] = step
                    model[key] = step
                case 2:
                    XCTAssertEqual(table.removeValue(forKey: key), model.removeValue(forKey: key), "step \(step)")
                default:
                    table[key] = nil
                    model[key] = nil
                }
                XCTAssertEqual(table.count, model.count, "step \(step)")
                if step % 97 == 0 {
                    for (key, value) in model { XCTAssertEqual(table[key], value, "step \(step) key \(key)") }
                    XCTAssertEqual(table.values.sorted(), model.values.sorted(), "step \(step)")
                }
            }
            for (key, value) in model { XCTAssertEqual(table[key], value, "end, key \(key)") }
        }
    }

    func testAStreamClosedInTheMiddleOfACollisionRunLeavesTheOthersFindable() {
        var table = StreamTable<String>()
        // 64 streams open in an 128-slot table: runs form; close every third, check all.
        let ids = (0..<64).map { Int32($0 * 2 + 1) }
        for id in ids { table[id] = "stream \(id)" }
        for id in ids where id % 3 == 0 { XCTAssertEqual(table.removeValue(forKey: id), "stream \(id)") }
        for id in ids {
            XCTAssertEqual(table[id], id % 3 == 0 ? nil : "stream \(id)", "stream \(id)")
        }
        XCTAssertNil(table.removeValue(forKey: 3), "a closed stream is gone")
        table.removeAll()
        XCTAssertTrue(table.isEmpty)
        XCTAssertNil(table[1])
    }
}
