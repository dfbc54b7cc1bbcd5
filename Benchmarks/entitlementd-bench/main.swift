/// entitlementd-bench: store-level benchmark programs for issue 3. They print figures; nothing
/// asserts on them, and Scripts/test never runs them.
///
///   entitlementd-bench seed    --database PATH --users N --transactions-per-user K
///   entitlementd-bench writes  --database PATH --writers N --count M
///   entitlementd-bench startup --database PATH
///   entitlementd-bench reads   --database PATH --users N --distinct D [--write-every-ms MS]
///   entitlementd-bench dashboard --database PATH [--users N] [--rounds R]
///
/// Build: swift build -c release --product entitlementd-bench --scratch-path .build-release
import Foundation

let usage = """
    usage: entitlementd-bench seed    --database PATH --users N --transactions-per-user K
           entitlementd-bench writes  --database PATH --writers N --count M
           entitlementd-bench startup --database PATH
           entitlementd-bench reads   --database PATH --users N --distinct D [--write-every-ms MS]
           entitlementd-bench dashboard --database PATH [--users N] [--rounds R]
    """

do {
    var arguments = Array(CommandLine.arguments.dropFirst())
    guard !arguments.isEmpty else { throw BenchError(usage) }
    let command = arguments.removeFirst()
    let options = try Options(arguments)
    switch command {
    case "seed": try await SeedCommand(options).run()
    case "writes": try await WritesCommand(options).run()
    case "startup": try await StartupCommand(options).run()
    case "reads": try await ReadsCommand(options).run()
    case "dashboard": try await DashboardCommand(options).run()
    default: throw BenchError("unknown subcommand '\(command)'\n\(usage)")
    }
} catch {
    FileHandle.standardError.write(Data("entitlementd-bench: \(error)\n".utf8))
    exit(1)
}
