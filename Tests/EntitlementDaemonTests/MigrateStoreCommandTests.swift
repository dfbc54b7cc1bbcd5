@testable import EntitlementDaemon
import ServiceRuntime
import Testing

/// `entitlementd migrate-store` arguments: both forms of each flag, and errors that say what to pass.
struct MigrateStoreCommandTests {
    typealias Arguments = MigrateStoreCommand.Arguments

    @Test func bothFlagFormsAreRead() throws {
        let expected = Arguments(from: "/var/lib/e.sqlite", to: "postgresql://u@h/db")
        #expect(try MigrateStoreCommand.parse(["--from", "/var/lib/e.sqlite", "--to", "postgresql://u@h/db"])
            == expected)
        #expect(try MigrateStoreCommand.parse(["--to=postgresql://u@h/db", "--from=/var/lib/e.sqlite"]) == expected)
        #expect(try MigrateStoreCommand.parse(["--from", "x", "--help"]) == nil)
    }

    @Test(arguments: [
        (["--from", "a.sqlite"], "--to"),
        (["--to", "postgres://h/db"], "--from"),
        (["--from", "a.sqlite", "--to", "b.sqlite"], "postgres:// or postgresql://"),
        (["--from", "postgres://h/a", "--to", "postgres://h/b"], "not a URL"),
        (["--from", "a.sqlite", "--to"], "needs a value"),
        (["--from=", "--to", "postgres://h/db"], "needs a value"),
        (["--database", "a.sqlite"], "unknown argument"),
    ])
    func badArgumentsSayWhatToPass(_ arguments: [String], _ hint: String) {
        #expect {
            _ = try MigrateStoreCommand.parse(arguments)
        } throws: { error in
            "\(error)".contains(hint)
        }
    }
}
