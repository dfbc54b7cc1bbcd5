import ServiceRuntime
import Testing

/// The text format writes one event per line whatever a field holds: caller-controlled values
/// (user ids, Apple's error text) cannot start a forged line or a forged field.
struct LoggerTextFormatTests {
    static let cases: [(value: String, written: String)] = [
        ("u42", "u42"),
        ("", ""),
        ("two words", #""two words""#),
        ("say \"hi\"", #""say \"hi\"""#),
        (#"C:\path"#, #""C:\\path""#),
        ("x\n2026-12-01T00:00:00Z INFO forged", #""x\n2026-12-01T00:00:00Z INFO forged""#),
        ("a\rb\tc", #""a\rb\tc""#),
        ("bell\u{7}del\u{7f}", #""bell\u0007del\u007f""#),
        ("back\u{8}feed\u{c}", #""back\u0008feed\u000c""#),
        ("café", "café"),
    ]

    @Test(arguments: cases)
    func fieldValues(value: String, written: String) {
        let recorder = LogRecorder()
        let logger = Logger(minimumLevel: .info, sink: recorder.sink)
        logger.info("event", [("field", value)])
        let lines = recorder.recorded
        #expect(lines.count == 1)
        #expect(lines.first?.hasSuffix(" event field=\(written)") == true, "\(lines)")
        #expect(lines.first?.contains("\n") == false)
    }
}
