import Foundation
import SQLite
import SQLiteStore
import Testing

/// The online backup copies one snapshot, however many commits land between its steps: the
/// property `entitlementd backup` promises (every write acknowledged before it began, none
/// half-copied), and the reason it can finish on a busy store at all (the backup API restarts
/// from the first page when another connection commits, unless a read transaction pins the
/// snapshot).
@Suite struct OnlineBackupTests {
    private func folder() throws -> String {
        let directory = NSTemporaryDirectory() + "online-backup-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func commitsBetweenStepsNeitherRestartNorEnterTheCopy() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = try Connection(path: directory + "/source.sqlite")
        _ = try source.scalarString("PRAGMA journal_mode = WAL")
        try source.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try source.execute("BEGIN")
        let insert = try source.prepare("INSERT INTO rows (body) VALUES (?)")
        for _ in 0..<2_000 {
            insert.bind(String(repeating: "x", count: 200), at: 1)
            try insert.execute()
        }
        try source.execute("COMMIT")
        // Another connection, as the server's writer is to the backup command.
        let writer = try Connection(path: directory + "/source.sqlite")
        let backup = try Connection(path: directory + "/source.sqlite", options: .init(create: false))
        var steps = 0
        var totals: Set<Int> = []
        try backup.backup(to: directory + "/copy.sqlite", pagesPerStep: 2) { copied, total in
            steps += 1
            totals.insert(total)
            #expect(copied <= total)
            try? writer.execute("INSERT INTO rows (body) VALUES ('after the backup began')")
        }
        #expect(steps > 20, "the copy took many steps (\(steps)), each followed by a commit")
        #expect(totals.count == 1, "one snapshot's page count throughout: \(totals)")
        let copy = try Connection(path: directory + "/copy.sqlite", options: .init(create: false))
        #expect(try copy.scalarInt64("SELECT count(*) FROM rows") == 2_000)
        #expect(try copy.scalarString("PRAGMA integrity_check") == "ok")
        #expect(try writer.scalarInt64("SELECT count(*) FROM rows") == Int64(2_000 + steps))
    }

    @Test func aBackupOfSomethingElseIsRefusedAndLeavesNoFile() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let other = try Connection(path: directory + "/other.sqlite")
        try other.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
        #expect(throws: (any Error).self) {
            _ = try SQLiteMaintenance.backup(from: directory + "/other.sqlite",
                                             to: directory + "/copy.sqlite") { _, _ in }
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/copy.sqlite"))
    }
}
