import Foundation
import SQLiteStore
import StorageCore

/// Startup cost of the store on an existing database: opening it (WAL, pragmas, the migrations
/// check) and serving a first facts read, plus the RSS that leaves. The OS page cache is
/// whatever the machine has: right after `seed` the file is mostly cached.
struct StartupCommand {
    let path: String
    let user: String

    init(_ options: Options) throws {
        path = try options.string("database")
        user = (try? options.string("user")) ?? "u0"
    }

    func run() async throws {
        guard FileManager.default.fileExists(atPath: path) else { throw BenchError("no database at \(path)") }
        let rssBefore = Measure.rssKiB()
        let (store, opening) = try await Measure.time {
            let store = try EntitlementStore(path: path, configuration: .init())
            store.start()
            return store
        }
        let (facts, firstRead) = try await Measure.time { try store.facts(userID: user) }
        let (_, secondRead) = try await Measure.time { try store.facts(userID: user) }
        let rssAfter = Measure.rssKiB()
        await store.close()
        print("startup: \(path) (\(Measure.mib(Measure.fileBytes(path))))")
        print(
            "startup: open+migrations check \(Measure.ms(opening)), first facts(\(user)) "
                + "\(Measure.ms(firstRead)) (\(facts.transactions.count) transactions), "
                + "total \(Measure.ms(opening + firstRead)); second (cached) read \(Measure.us(secondRead))")
        print(
            "startup: RSS \(Measure.mib(rssBefore * 1024)) before open, "
                + "\(Measure.mib(rssAfter * 1024)) after the first read")
    }
}
