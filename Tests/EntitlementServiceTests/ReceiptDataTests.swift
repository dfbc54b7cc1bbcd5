@testable import EntitlementService
import Testing

/// Receipt data normalization: the canonical shortcut must answer exactly what the general
/// path answers, for every shape an app may send.
struct ReceiptDataTests {
    @Test(arguments: [
        ("QUJD", "QUJD"),
        ("QUI=", "QUI="),
        ("QQ==", "QQ=="),
        ("QUI", "QUI="),
        ("QQ", "QQ=="),
        ("QU\r\nJD", "QUJD"),
        ("QUJD\n", "QUJD"),
        ("ab+/", "ab+/"),
        ("", nil),
        ("Q", nil),
        ("QUJDR", nil),
        ("Q===", nil),
        ("QQ=A", nil),
        ("QUI==", nil),
        ("QUJD====", nil),
        ("QU D", nil),
        ("QU-D", nil),
        ("QUé=", nil),
        ("====", nil),
        ("QQ=\n=", "QQ=="),
    ] as [(String, String?)])
    func normalizesOrRefuses(input: String, expected: String?) {
        #expect(ReceiptData.normalized(input) == expected)
        #expect(ReceiptData.rebuilt(input) == expected, "the general path agrees")
    }

    /// Every string of up to 5 characters over a small alphabet: the shortcut never answers
    /// differently from the general path.
    @Test func theShortcutAgreesWithTheGeneralPathExhaustively() {
        let alphabet: [Character] = ["A", "b", "+", "=", "\n", "-"]
        var inputs = [""]
        for _ in 0..<5 {
            inputs += inputs.flatMap { prefix in alphabet.map { prefix + String($0) } }
        }
        for input in Set(inputs) {
            #expect(ReceiptData.normalized(input) == ReceiptData.rebuilt(input), "\(input.debugDescription)")
            #expect(takesTheShortcut(input) == (ReceiptData.rebuilt(input) == input), "\(input.debugDescription)")
        }
    }

    /// Whether `normalized` answers `input` by the canonical shortcut. A shortcut refusing too
    /// much would still answer right (through the general path), so it is checked directly.
    private func takesTheShortcut(_ input: String) -> Bool {
        var input = input
        return input.withUTF8(ReceiptData.isCanonical)
    }

    /// Receipt-sized input (checked eight bytes at a time, then a tail of four): every byte
    /// value in each of a word's eight places, in the tail, just before the padding and in each
    /// padding position, padded 0, 1 or 2 times.
    @Test(arguments: [0, 1, 2])
    func longReceiptsWithOneOddByteGetTheGeneralPathsAnswer(padding: Int) {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var canonical = (0..<1_004).map { alphabet[($0 * 7) % alphabet.count] }
        canonical.replaceSubrange((1_004 - padding)..., with: repeatElement(UInt8(ascii: "="), count: padding))
        #expect(takesTheShortcut(String(decoding: canonical, as: UTF8.self)))
        for position in Array(496..<504) + [0, 1_000, 1_001 - padding, 1_002, 1_003] {
            for byte in 0...255 {
                var bytes = canonical
                bytes[position] = UInt8(byte)
                let input = String(decoding: bytes, as: UTF8.self)
                #expect(ReceiptData.normalized(input) == ReceiptData.rebuilt(input), "byte \(byte) at \(position)")
                #expect(takesTheShortcut(input) == (ReceiptData.rebuilt(input) == input), "byte \(byte) at \(position)")
            }
        }
    }
}
