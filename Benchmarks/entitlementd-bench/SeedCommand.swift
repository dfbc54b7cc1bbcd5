import Foundation
import SQLiteStore
import StorageCore

/// Builds the bench database through ``EntitlementStore/seed(_:)``, a slice of users at a time
/// so the writes in memory stay small (the store commits each slice in its own big chunks).
struct SeedCommand {
    let path: String
    let users: Int
    let perUser: Int
    /// Users per `seed` call: a few of the writer's 20,000-write commit chunks.
    let slice = 100_000

    init(_ options: Options) throws {
        path = try options.string("database")
        users = try options.int("users")
        perUser = try options.int("transactions-per-user")
    }

    func run() async throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw BenchError("\(path) exists; seed builds a fresh database")
        }
        let data = BenchData(transactionsPerUser: perUser, nowMs: Int64(Date().timeIntervalSince1970 * 1000))
        let store = try EntitlementStore(path: path, configuration: .init())
        store.start()
        let ((), elapsed) = try await Measure.time {
            var start = 0
            while start < users {
                let end = min(start + slice, users)
                try await store.seed((start..<end).map { data.write(user: $0) })
                start = end
            }
            // Counted in: close() checkpoints the WAL into the file, part of having the data set.
            await store.close()
        }
        let rows = users * perUser
        print("seed: \(users) users x \(perUser) transactions = \(rows) transactions in "
              + String(format: "%.1f s", elapsed))
        print("seed: \(Measure.rate(rows, elapsed)) transactions/s, \(Measure.rate(users, elapsed)) users/s")
        print("seed: file \(Measure.mib(Measure.fileBytes(path))) (\(path), WAL checkpointed), "
              + "peak RSS \(Measure.mib(Measure.rssKiB("VmHWM") * 1024))")
    }
}
