import ServiceRuntime

/// The `--name value` / `--name=value` arguments of a one-shot subcommand (backup,
/// verify-store), with the switches it allows.
struct CommandArguments {
    var values: [String: String] = [:]
    var switches: Set<String> = []

    /// Nil with `--help`; a FlagError naming the command for anything it does not take.
    static func parse(_ arguments: [String], command: String, values allowed: [String],
                      switches allowedSwitches: [String] = []) throws(FlagError) -> CommandArguments? {
        var parsed = CommandArguments()
        var index = 0
        let takes = (allowed + allowedSwitches).map { "--\($0)" }.joined(separator: ", ")
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { return nil }
            let equals = argument.firstIndex(of: "=")
            let name = String(argument[..<(equals ?? argument.endIndex)].drop { $0 == "-" })
            guard argument.hasPrefix("--") else {
                throw FlagError("\(command): unexpected argument \(argument) (it takes \(takes))")
            }
            if allowedSwitches.contains(name), equals == nil {
                parsed.switches.insert(name)
                continue
            }
            guard allowed.contains(name) else {
                throw FlagError("\(command): unknown argument \(argument) (it takes \(takes))")
            }
            var value: String
            if let equals {
                value = String(argument[argument.index(after: equals)...])
            } else {
                guard index < arguments.count else { throw FlagError("\(command): --\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            guard !value.isEmpty else { throw FlagError("\(command): --\(name) needs a value") }
            parsed.values[name] = value
        }
        return parsed
    }
}
