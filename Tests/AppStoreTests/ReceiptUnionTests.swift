import SeededRandom
@testable import AppStore
import Entitlements
import XCTest

/// ``ReceiptUnion`` merges sources as the plain reading of its rule does: each source's own
/// dictionary (a repeat within it kept when it says more), then merged into the union with the
/// newer source winning. The union hashes each id once instead; these rounds hold it to that reading.
final class ReceiptUnionTests: XCTestCase {
    func testOneHashPerTransactionUnionsLikeMergingEachSourcesDictionary() {
        var random = SplitMix64(seed: 0x5EED_0013)
        for round in 0..<2_000 {
            let sources = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                (0..<Int.random(in: 0...8, using: &random)).map { _ in Self.transaction(using: &random) }
            }
            var union = ReceiptUnion()
            for source in sources { union.add(source) }
            XCTAssertEqual(union.sortedTransactions, Self.sortedByMergingDictionaries(sources), "round \(round)")
        }
    }

    func testALaterSourceReplacesAnEntryThatSaysMore() {
        let cancelled = Transaction(
            transactionID: "7", originalTransactionID: "7", productID: "p", purchaseDateMs: 1, cancellationDateMs: 5)
        let plain = Transaction(transactionID: "7", originalTransactionID: "7", productID: "p", purchaseDateMs: 1)
        var union = ReceiptUnion()
        union.add([cancelled])
        union.add([plain])
        XCTAssertEqual(union.sortedTransactions, [plain])
        var within = ReceiptUnion()
        within.add([cancelled, plain])
        XCTAssertEqual(within.sortedTransactions, [cancelled])
    }

    /// Few ids and few values per field, so repeats within and across sources are common.
    private static func transaction(using random: inout SplitMix64) -> Transaction {
        let id = String(Int.random(in: 1...6, using: &random))
        func maybe(_ values: [Int64]) -> Int64? {
            Bool.random(using: &random) ? nil : values.randomElement(using: &random)
        }
        return Transaction(
            transactionID: id, originalTransactionID: Bool.random(using: &random) ? "1" : id,
            productID: ["a", "b"].randomElement(using: &random)!,
            purchaseDateMs: Int64.random(in: 1...3, using: &random),
            expiresDateMs: maybe([10, 20]), cancellationDateMs: maybe([15]),
            isTrialPeriod: Bool.random(using: &random), webOrderLineItemID: Bool.random(using: &random) ? "9" : nil)
    }

    private static func sortedByMergingDictionaries(_ sources: [[Transaction]]) -> [Transaction] {
        var union: [String: Transaction] = [:]
        for source in sources {
            var own: [String: Transaction] = [:]
            for transaction in source {
                if let seen = own[transaction.transactionID], saysMore(seen, than: transaction) { continue }
                own[transaction.transactionID] = transaction
            }
            union.merge(own) { _, newer in newer }
        }
        let values = Array(union.values)
        return values.indices.sorted { Transaction.chainOrder(values[$0], values[$1]) }.map { values[$0] }
    }

    /// ReceiptUnion's documented order of "says more", spelled out again.
    private static func saysMore(_ lhs: Transaction, than rhs: Transaction) -> Bool {
        if (lhs.cancellationDateMs != nil) != (rhs.cancellationDateMs != nil) { return lhs.cancellationDateMs != nil }
        if rhs.isOrdered(before: lhs) { return true }
        if lhs.isOrdered(before: rhs) { return false }
        return String(describing: lhs) >= String(describing: rhs)
    }
}
