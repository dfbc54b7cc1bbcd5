import ServiceRuntime
import XCTest

/// Issue 16: an empty value (an env file line left blank) is refused, naming where it came
/// from, when the parser says so; otherwise "" stays a value (entitlementctl's `--service ""`).
final class FlagParserEmptyValueTests: XCTestCase {
    let specs = [
        FlagSpec("apple-shared-secret", value: "SECRET", help: "secret"),
        FlagSpec("log-level", value: "LEVEL", default: "info", help: "level"),
        FlagSpec("verbose", isSwitch: true, help: "switch"),
    ]

    func parser(refusing: Bool) -> FlagParser {
        FlagParser(program: "p", summary: "", environmentPrefix: "P", specs: specs, refusesEmptyValues: refusing)
    }

    func testEmptyValuesAreRefusedNamingTheirSource() {
        let cases: [(arguments: [String], environment: [String: String], mentions: String)] = [
            ([], ["P_APPLE_SHARED_SECRET": ""], "P_APPLE_SHARED_SECRET is set but empty"),
            ([], ["P_LOG_LEVEL": ""], "P_LOG_LEVEL is set but empty"),
            ([], ["P_VERBOSE": ""], "P_VERBOSE is set but empty"),
            (["--apple-shared-secret="], [:], "--apple-shared-secret= is empty"),
            (["--apple-shared-secret", ""], [:], "--apple-shared-secret is given an empty value"),
            (["--verbose="], [:], "--verbose= is empty"),
        ]
        for (arguments, environment, mentions) in cases {
            do {
                let parsed = try parser(refusing: true).parse(arguments, environment: environment)
                XCTFail("\(arguments) \(environment) parsed as \(parsed.values)")
            } catch {
                XCTAssertTrue(error.description.contains(mentions), "\(error.description) lacks '\(mentions)'")
            }
        }
    }

    func testUnsetAndNonEmptyValuesStillParse() throws {
        let parsed = try parser(refusing: true).parse(
            ["--verbose"], environment: ["P_APPLE_SHARED_SECRET": "s3cret", "UNRELATED": ""])
        XCTAssertEqual(parsed.string("apple-shared-secret"), "s3cret")
        XCTAssertEqual(parsed.string("log-level"), "info")
        XCTAssertEqual(parsed.string("verbose"), "true")
        let unset = try parser(refusing: true).parse([], environment: [:])
        XCTAssertNil(unset.string("apple-shared-secret"))
    }

    func testWithoutRefusalAnEmptyValueIsKept() throws {
        let parsed = try parser(refusing: false).parse(["--log-level="], environment: ["P_APPLE_SHARED_SECRET": ""])
        XCTAssertEqual(parsed.string("log-level"), "")
        XCTAssertEqual(parsed.string("apple-shared-secret"), "")
    }
}

/// Values of whitespace only are refused like empty ones; `--version` and subcommands show.
final class FlagParserWhitespaceAndVersionTests: XCTestCase {
    let parser = FlagParser(
        program: "p", summary: "", environmentPrefix: "P",
        specs: [FlagSpec("apple-shared-secret", value: "SECRET", help: "secret")],
        refusesEmptyValues: true, version: "1.2.3", commands: [("migrate-store", "copy a store")])

    func testWhitespaceOnlyValuesAreRefused() {
        for (arguments, environment) in [(["--apple-shared-secret", "   "], [:]), (["--apple-shared-secret=\t"], [:]),
                                         ([], ["P_APPLE_SHARED_SECRET": "  "])] as [([String], [String: String])] {
            XCTAssertThrowsError(try parser.parse(arguments, environment: environment)) { error in
                XCTAssertTrue("\(error)".contains("only whitespace"), "\(error)")
            }
        }
        XCTAssertEqual(try parser.parse(["--apple-shared-secret", " s "], environment: [:])
                       .string("apple-shared-secret"), " s ")
    }

    func testVersionAndCommandsShow() throws {
        XCTAssertTrue(try parser.parse(["--version"], environment: [:]).versionRequested)
        XCTAssertTrue(parser.usage.contains("migrate-store"))
        XCTAssertTrue(parser.usage.contains("--version"))
    }
}

/// A `PREFIX_*` variable naming no flag is reported with the flag variable nearest to it.
final class FlagParserUnknownVariableTests: XCTestCase {
    func testTyposAreNamedWithTheNearestFlagAndOthersAreLeftAlone() {
        let parser = FlagParser(program: "p", summary: "", environmentPrefix: "P", specs: [
            FlagSpec("apple-shared-secret", value: "SECRET", help: "secret"),
            FlagSpec("listen", value: "HOST:PORT", help: "listen"),
        ])
        let unknown = parser.unknownEnvironmentVariables(
            ["P_APPLE_SHARED_SECRT": "x", "P_LISTN": "y", "P_LISTEN": "z", "P_TOOL_URL": "u", "PATH": "/bin"],
            otherVariables: ["P_TOOL_URL"])
        XCTAssertEqual(unknown.map(\.name), ["P_APPLE_SHARED_SECRT", "P_LISTN"])
        XCTAssertEqual(unknown.map(\.nearest), ["P_APPLE_SHARED_SECRET", "P_LISTEN"])
    }
}
