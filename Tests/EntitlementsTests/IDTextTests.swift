@testable import Entitlements
import Testing

/// Ids held as numbers when their text is exactly a number's decimal form, and as text
/// otherwise: every id reads back byte for byte, and transactions compare as their texts do.
struct IDTextTests {
    @Test(arguments: [
        ("0", 0), ("7", 7), ("2000000013429558", 2_000_000_013_429_558),
        ("9999999999999999999", 9_999_999_999_999_999_999),
        ("10000000000000000000", nil), ("18446744073709551615", nil), ("007", nil), ("00", nil), ("", nil),
        ("+1", nil), ("-1", nil), (" 1", nil), ("1 ", nil), ("1.0", nil), ("\u{FF11}", nil), ("12a", nil),
        ("wo-1000", nil),
    ] as [(String, UInt64?)])
    func heldAsANumberExactlyWhenItsTextIsOne(_ text: String, _ number: UInt64?) {
        let id = IDText(text)
        #expect(id == (number.map(IDText.number) ?? .text(text)))
        #expect(Array(id.text.utf8) == Array(text.utf8))
    }

    /// Numbers read back as `String(value)` at every length and edge.
    @Test func numbersReadBackAsTheirDecimalText() {
        var values: [UInt64] = [0, 9, 10, UInt64.max, 9_999_999_999_999_999_999]
        var power: UInt64 = 1
        for _ in 0..<19 {
            values += [power - 1, power, power + 1, 7 * power]
            power &*= 10
        }
        for value in values {
            #expect(Array(IDText.decimal(value).utf8) == Array(String(value).utf8))
        }
    }

    /// A transaction's web order line item id reads back as set, through the initialiser and
    /// the property, and equal ids make equal transactions (hashed alike), unequal ones not.
    @Test func aTransactionsWebOrderLineItemIDReadsBackAndCompares() {
        func transaction(_ webOrder: String?) -> Transaction {
            Transaction(transactionID: "1", originalTransactionID: "1", productID: "p", purchaseDateMs: 0,
                        webOrderLineItemID: webOrder)
        }
        for id in ["2000000013429558", "0123", "wo-1", nil] as [String?] {
            #expect(transaction(id).webOrderLineItemID == id)
            var changed = transaction("5")
            changed.webOrderLineItemID = id
            #expect(changed == transaction(id))
            #expect(changed.hashValue == transaction(id).hashValue)
        }
        #expect(transaction("123") != transaction("0123"))
        #expect(transaction("123") != transaction(nil))
        #expect(Set([transaction("123"), transaction("123"), transaction("0123")]).count == 2)
    }
}
