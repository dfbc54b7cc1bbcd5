import ConsoleDashboard
import EntitlementPorts
import Entitlements
import Foundation
import SQLiteStore
import StorageCore

/// The console dashboard's cost: the last 90 days' figures read from the daily rollup and
/// rendered to HTML, timed over `--rounds` calls (p50/p99), on a database of `--users` users
/// seeded with ``DashboardData`` when `--database` does not exist yet (or any other store,
/// such as the shared 1M x 3 set, when it does: opening one from before the rollup fills it).
struct DashboardCommand {
    let path: String
    let users: Int
    let rounds: Int
    let slice = 100_000

    init(_ options: Options) throws {
        path = try options.string("database")
        users = try options.int("users", default: 1_000_000)
        rounds = try options.int("rounds", default: 200)
    }

    func run() async throws {
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        if !FileManager.default.fileExists(atPath: path) {
            let data = DashboardData(nowMs: nowMs)
            let store = try EntitlementStore(path: path, configuration: .init())
            store.start()
            let ((), elapsed) = try await Measure.time {
                var start = 0
                while start < users {
                    let end = min(start + slice, users)
                    try await store.seed((start..<end).map { data.write(user: $0) })
                    start = end
                }
                await store.close()
            }
            print("dashboard: seeded \(users) users in " + String(format: "%.1f s", elapsed)
                  + ", file \(Measure.mib(Measure.fileBytes(path)))")
        }
        let (store, opening) = try await Measure.time {
            let store = try EntitlementStore(path: path, configuration: .init())
            store.start()
            return store
        }
        print("dashboard: open \(Measure.ms(opening)) (\(path); includes filling the rollup if it predates it)")
        let days = DashboardPage.days(endingOn: UTCDay(containing: nowMs))
        var latencies: [Double] = [], queries: [Double] = []
        var bytes = 0, active: Int64 = 0
        for _ in 0..<rounds {
            let (page, elapsed) = try await Measure.time {
                let (figures, query) = try await Measure.time {
                    try store.dailyFigures(days: days, environment: .production)
                }
                queries.append(query)
                active = figures.last?.activeSubscriptions ?? 0
                return DashboardPage.render(figures: figures)
            }
            bytes = page.utf8.count
            latencies.append(elapsed)
        }
        queries.sort()
        await store.close()
        let first = latencies[0]
        latencies.sort()
        print("dashboard: 90 days query+render over \(rounds) rounds: first \(Measure.ms(first)), "
              + "p50 \(Measure.ms(Measure.percentile(latencies, 50))), "
              + "p99 \(Measure.ms(Measure.percentile(latencies, 99))), "
              + "max \(Measure.ms(latencies.last ?? 0)); "
              + "the query alone p50 \(Measure.ms(Measure.percentile(queries, 50))), "
              + "p99 \(Measure.ms(Measure.percentile(queries, 99))); page \(bytes) bytes; \(active) active today")
    }
}
