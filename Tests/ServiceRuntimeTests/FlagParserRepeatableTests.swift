import ServiceRuntime
import Testing

/// A repeatable flag (--webhook-url) keeps every value, from the command line or from its
/// environment variable (whitespace-separated); the command line wins over the environment.
struct FlagParserRepeatableTests {
    let parser = FlagParser(program: "t", summary: "", environmentPrefix: "T",
                            specs: [FlagSpec("url", isRepeatable: true, help: "u"), FlagSpec("one", help: "o")])

    @Test(arguments: [
        ([String](), [String: String](), [String]()),
        (["--url", "a"], [:], ["a"]),
        (["--url", "a", "--url=b", "--url", "c"], [:], ["a", "b", "c"]),
        ([], ["T_URL": "a  b\nc"], ["a", "b", "c"]),
        (["--url", "x"], ["T_URL": "a b"], ["x"]),
    ])
    func everyValueIsKeptInOrder(arguments: [String], environment: [String: String], expected: [String]) throws {
        #expect(try parser.parse(arguments, environment: environment).strings("url") == expected)
    }

    @Test func aPlainFlagGivenTwiceKeepsTheLastValue() throws {
        let flags = try parser.parse(["--one", "a", "--one", "b"], environment: [:])
        #expect(flags.string("one") == "b")
        #expect(flags.strings("one") == ["b"])
    }

    @Test func helpSaysWhichFlagsRepeat() {
        #expect(parser.usage.contains("(repeatable)"))
    }
}
