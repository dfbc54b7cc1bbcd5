import SQLDatabase

/// A record's strings in first-use order, each byte sequence once.
package struct StringTable {
    package var values: [String] = []
    package var indexes: [ExactID: UInt64] = [:]
    /// Whether each value was referenced as a product or group id (a `product_names` row).
    package var isName: [Bool] = []

    /// Reserved for about `capacity` distinct strings: growing the dictionary rehashes every
    /// string it holds (a record's ids are mostly distinct: transaction and web order ids).
    package init(capacity: Int) {
        values.reserveCapacity(capacity)
        indexes.reserveCapacity(capacity)
        isName.reserveCapacity(capacity)
    }

    /// Keyed by bytes, not by String equality (Unicode equivalence: "é" would find "e\u{301}"),
    /// so every string reads back byte for byte as the tables hold it; one hash per string,
    /// found or inserted in the same dictionary access (a String key hashed a new string twice
    /// and then compared its bytes again: ~1,200 instructions a lookup, 37 per distinct write).
    package mutating func index(_ string: String, isName name: Bool = false) -> UInt64 {
        let next = UInt64(values.count)
        let index = Self.current(&indexes[ExactID(string), default: next])
        if index == next {
            values.append(string)
            isName.append(name)
        } else if name {
            isName[Int(index)] = true
        }
        return index
    }

    /// The value an inout access left in place: through the dictionary's `default:` subscript,
    /// the found one or the default just inserted.
    private static func current(_ value: inout UInt64) -> UInt64 { value }

    /// Where each string goes in a version-3 record: the numbers (``DecimalText``) first, in
    /// ascending order; then the product and group ids `nameRow` finds a `product_names` row
    /// for, in row order; then the others in first-use order. `finalIndexes[i]` is the place
    /// of `values[i]`.
    package func layout(nameRow: (String) -> Int64?) -> Layout {
        var numbered: [(value: UInt64, index: Int)] = []
        var named: [(row: Int64, index: Int)] = []
        var texts: [String] = []
        var textIndexes: [Int] = []
        for (index, string) in values.enumerated() {
            if let value = DecimalText.value(string) {
                numbered.append((value, index))
            } else if isName[index], let row = nameRow(string), row > 0 {
                named.append((row, index))
            } else {
                texts.append(string)
                textIndexes.append(index)
            }
        }
        // Distinct strings have distinct values (only one spelling of a number is canonical)
        // and distinct rows (product_names holds each byte sequence once).
        numbered.sort { $0.value < $1.value }
        named.sort { $0.row < $1.row }
        var finalIndexes = [UInt64](repeating: 0, count: values.count)
        for (place, entry) in numbered.enumerated() { finalIndexes[entry.index] = UInt64(place) }
        for (place, entry) in named.enumerated() { finalIndexes[entry.index] = UInt64(numbered.count + place) }
        for (place, index) in textIndexes.enumerated() {
            finalIndexes[index] = UInt64(numbered.count + named.count + place)
        }
        return Layout(numbers: numbered.map(\.value), nameRows: named.map(\.row), texts: texts,
                      finalIndexes: finalIndexes)
    }

    package struct Layout {
        package let numbers: [UInt64]
        package let nameRows: [Int64]
        package let texts: [String]
        package let finalIndexes: [UInt64]
    }
}

/// Which strings a record may store as a number: exactly the text `String(value)` gives back,
/// 1 to 18 ASCII digits without a leading zero ("0" itself included), so "0123", "+1", " 1" or
/// a 19-digit id stay text and every string reads back byte for byte.
package enum DecimalText {
    /// The first value with 19 digits: every number a record stores is below it.
    package static let limit: UInt64 = 1_000_000_000_000_000_000

    /// Read from the string's own bytes when they are contiguous (native and small strings):
    /// through the generic `String.UTF8View` walk a 16-digit id cost ~700 instructions, and a
    /// distinct SubmitReceipt call converts ~37 of them (~26k, callgrind).
    package static func value(_ string: String) -> UInt64? {
        if let value = string.utf8.withContiguousStorageIfAvailable({ value(utf8: $0) }) { return value }
        return value(utf8: string.utf8)
    }

    /// ``value(_:)`` of a string's UTF-8 bytes (a slice of a longer text, say).
    package static func value<Bytes: Collection<UInt8>>(utf8: Bytes) -> UInt64? {
        guard (1...18).contains(utf8.count), utf8.first != UInt8(ascii: "0") || utf8.count == 1 else { return nil }
        var value: UInt64 = 0
        for byte in utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// `String(value)` for a value under 10^18 (a record's numeric string, an event id's
    /// number), through ``DecimalDigits/text(_:)``: a stack buffer, not the generic
    /// integer-printing path, which cost ~1,200 of the ~64,500 instructions of a CheckEntitlement
    /// that misses the facts cache (cachegrind, 1M x 3 set: a miss decodes 4 numeric ids there).
    package static func text(_ value: UInt64) -> String { DecimalDigits.text(Int64(value)) }
}
