import Testing
import Webhooks

/// Cursors: `c1.` + 16 lowercase hex digits, read back exactly, nothing else accepted.
struct ChangeCursorTextTests {
    @Test(arguments: [(Int64(0), "c1.0000000000000000"), (42, "c1.000000000000002a"),
                      (Int64.max, "c1.7fffffffffffffff")])
    func roundTrips(sequence: Int64, text: String) {
        #expect(ChangeCursorText.text(sequence) == text)
        #expect(ChangeCursorText.sequence(text) == sequence)
    }

    @Test(arguments: ["", "42", "c1.2a", "c1.000000000000002A", "c2.000000000000002a", "c1.8000000000000000",
                      "c1.000000000000002g", "c1.000000000000002a "])
    func refusesWhatItDidNotIssue(text: String) {
        #expect(ChangeCursorText.sequence(text) == nil)
    }

    @Test func sortsAsStringsInSequenceOrder() {
        let sequences: [Int64] = [1, 9, 10, 15, 16, 255, 256, 4_096]
        #expect(sequences.map(ChangeCursorText.text) == sequences.map(ChangeCursorText.text).sorted())
    }
}
