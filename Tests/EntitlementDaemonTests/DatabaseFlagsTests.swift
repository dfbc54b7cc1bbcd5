@testable import EntitlementDaemon
import ServiceRuntime
import SQLiteStore
import StorageCore
import Testing

/// --database-mmap-mib: SQLite's read connections map the file unless told not to.
struct DatabaseFlagsTests {
    private func mapBytes(_ arguments: [String], environment: [String: String] = [:]) throws -> Int {
        try DaemonFlags.databaseMemoryMapBytes(DaemonFlags.parser.parse(arguments, environment: environment))
    }

    @Test func mapsTheStoresDefaultUnlessToldAnAmountOrZero() throws {
        #expect(try mapBytes([]) == EntitlementStore.Configuration.defaultMemoryMapBytes)
        #expect(try mapBytes(["--database-mmap-mib", "0"]) == 0)
        #expect(try mapBytes(["--database-mmap-mib=512"]) == 512 << 20)
        #expect(try mapBytes([], environment: ["ENTITLEMENTD_DATABASE_MMAP_MIB": "64"]) == 64 << 20)
    }

    @Test(arguments: ["-1", "lots", "2GiB"])
    func refusesWhatIsNotMebibytes(_ value: String) {
        #expect(throws: FlagError.self) { try mapBytes(["--database-mmap-mib", value]) }
    }
}
