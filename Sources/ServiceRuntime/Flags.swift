import Foundation

/// One command-line flag: its name, what it means, and its default.
public struct FlagSpec: Sendable {
    public var name: String
    public var valueName: String
    public var help: String
    public var defaultValue: String?
    /// A switch (`--x`, or `--x=false`) rather than `--x VALUE`.
    public var isSwitch: Bool
    /// May be given several times (``ParsedFlags/strings(_:)``); its environment variable holds
    /// the values separated by whitespace.
    public var isRepeatable: Bool

    public init(_ name: String, value valueName: String = "VALUE", default defaultValue: String? = nil,
                isSwitch: Bool = false, isRepeatable: Bool = false, help: String) {
        self.name = name
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
        self.isSwitch = isSwitch
        self.isRepeatable = isRepeatable
    }

    /// `--auth-tokens-file` reads `ENTITLEMENTD_AUTH_TOKENS_FILE` when not given.
    public func environmentName(prefix: String) -> String {
        prefix + "_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}

/// A flag problem, phrased for the person who typed the command.
public struct FlagError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Parsed flags: command line first, then the environment, then defaults.
public struct ParsedFlags: Sendable {
    /// The value of each flag given (a repeatable flag's last one).
    public let values: [String: String]
    public let helpRequested: Bool
    /// `--version` was given (``FlagParser/version`` set).
    public var versionRequested = false
    /// Every value of each repeatable flag given, in order.
    public var lists: [String: [String]] = [:]

    public func string(_ name: String) -> String? { values[name] }

    /// Every value of a repeatable flag (``FlagSpec/isRepeatable``), in the order given.
    public func strings(_ name: String) -> [String] { lists[name] ?? values[name].map { [$0] } ?? [] }

    public func int(_ name: String, range: ClosedRange<Int> = 0...Int.max) throws(FlagError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw FlagError(
                "--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    public func bool(_ name: String) throws(FlagError) -> Bool {
        guard let text = values[name] else { return false }
        switch text.lowercased() {
        case "true", "1", "yes", "": return true
        case "false", "0", "no": return false
        default: throw FlagError("--\(name) must be true or false, got '\(text)'")
        }
    }

    /// Durations are written `500ms`, `30s`, `5m` or `1h`; a bare number means seconds.
    public func duration(_ name: String) throws(FlagError) -> Duration? {
        guard let text = values[name] else { return nil }
        guard let duration = ParsedFlags.parseDuration(text) else {
            throw FlagError("--\(name) must be a duration such as 500ms, 30s, 5m or 1h, got '\(text)'")
        }
        return duration
    }

    static func parseDuration(_ text: String) -> Duration? {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        for (suffix, milliseconds) in units where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            if suffix == "s" && number.hasSuffix("m") { continue }
            guard let value = Int64(number), value >= 0 else { return nil }
            return .milliseconds(value * milliseconds)
        }
        guard let seconds = Int64(text), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}

/// Parses `--name value`, `--name=value` and switches against a fixed list of specs.
public struct FlagParser: Sendable {
    public let program: String
    public let summary: String
    public let environmentPrefix: String
    public let specs: [FlagSpec]
    /// Refuse `--name=`, a set-but-empty `PREFIX_NAME=`, and values of whitespace only, rather
    /// than take them literally.
    ///
    /// An env file line left empty (`ENTITLEMENTD_APPLE_SHARED_SECRET=`) is almost always a value
    /// the operator forgot to fill in, and "" taken literally fails open where it hurts most:
    /// an empty shared secret matches a notification that sends no password at all. A value of
    /// spaces is the same mistake with a stray keystroke (and a secret nobody could guess is
    /// not what "   " is). Refusing at startup (exit 2, naming the variable) makes the mistake
    /// impossible to miss; leaving a flag unset is written by commenting the line out.
    public let refusesEmptyValues: Bool
    /// What `--version` prints; nil leaves `--version` an unknown flag.
    public let version: String?
    /// Subcommands the program also takes (name and one line), listed by ``usage``.
    public let commands: [(name: String, help: String)]

    public init(program: String, summary: String, environmentPrefix: String, specs: [FlagSpec],
                refusesEmptyValues: Bool = false, version: String? = nil,
                commands: [(name: String, help: String)] = []) {
        self.program = program
        self.summary = summary
        self.environmentPrefix = environmentPrefix
        self.specs = specs
        self.refusesEmptyValues = refusesEmptyValues
        self.version = version
        self.commands = commands
    }

    /// Whether `value` is one ``refusesEmptyValues`` refuses.
    func refuses(_ value: String) -> Bool {
        refusesEmptyValues && value.allSatisfy(\.isWhitespace)
    }

    public func parse(_ arguments: [String], environment: [String: String]) throws(FlagError) -> ParsedFlags {
        var values: [String: String] = [:]
        var lists: [String: [String]] = [:]
        var help = false
        var versionRequested = false
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if argument == "--help" || argument == "-h" {
                help = true
                continue
            }
            if argument == "--version" && version != nil {
                versionRequested = true
                continue
            }
            guard argument.hasPrefix("--") else {
                throw FlagError("unexpected argument '\(argument)' (flags start with --; see --help)")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs.first(where: { $0.name == name }) else {
                throw FlagError("unknown flag --\(name) (see --help)")
            }
            if let inlineValue {
                if refuses(inlineValue) {
                    throw FlagError("--\(name)= is empty (or only whitespace): give it a value, or leave the flag out")
                }
                values[name] = inlineValue
            } else if spec.isSwitch {
                values[name] = "true"
            } else {
                guard i < arguments.count else {
                    throw FlagError("--\(name) needs a value: --\(name) \(spec.valueName)")
                }
                if refuses(arguments[i]) {
                    throw FlagError("--\(name) is given an empty value (or only whitespace): give it a value, "
                                    + "or leave the flag out")
                }
                values[name] = arguments[i]
                i += 1
            }
            if spec.isRepeatable, let value = values[name] { lists[name, default: []].append(value) }
        }
        for spec in specs where values[spec.name] == nil {
            let variable = spec.environmentName(prefix: environmentPrefix)
            if let fromEnvironment = environment[variable] {
                if refuses(fromEnvironment) {
                    throw FlagError("\(variable) is set but empty (or only whitespace): give it a value, or comment "
                                    + "the line out to leave --\(spec.name) unset")
                }
                values[spec.name] = fromEnvironment
                if spec.isRepeatable {
                    lists[spec.name] = fromEnvironment.split(whereSeparator: \.isWhitespace).map(String.init)
                }
            } else if let defaultValue = spec.defaultValue {
                values[spec.name] = defaultValue
            }
        }
        var parsed = ParsedFlags(values: values, helpRequested: help, lists: lists)
        parsed.versionRequested = versionRequested
        return parsed
    }

    public var usage: String {
        let example = specs.first.map { $0.environmentName(prefix: environmentPrefix) } ?? ""
        var lines = ["usage: \(program) [flags]"]
        for command in commands { lines.append("       \(program) \(command.name) [flags]") }
        lines += ["", summary, ""]
        if !commands.isEmpty {
            lines.append("commands (each with its own --help):")
            for command in commands {
                let left = "  " + command.name
                lines.append(left.padding(toLength: max(left.count + 2, 34), withPad: " ", startingAt: 0)
                             + command.help)
            }
            lines.append("")
        }
        lines.append("flags (each also read from \(environmentPrefix)_<FLAG>, e.g. \(example)):")
        for spec in specs {
            let left = spec.isSwitch ? "  --\(spec.name)" : "  --\(spec.name) \(spec.valueName)"
            var text = left.padding(toLength: max(left.count + 2, 34), withPad: " ", startingAt: 0) + spec.help
            if spec.isRepeatable { text += " (repeatable)" }
            if let defaultValue = spec.defaultValue, !spec.isSwitch { text += " (default \(defaultValue))" }
            lines.append(text)
        }
        lines.append("  --help                          this text")
        if version != nil { lines.append("  --version                       print the version and exit") }
        return lines.joined(separator: "\n")
    }
}
