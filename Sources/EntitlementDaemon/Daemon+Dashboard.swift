import Console
import ConsoleDashboard
import EntitlementPorts
import Entitlements
import HTTPCore
import ServiceRuntime

/// The console's Dashboard: the last 90 days of the daily rollup as charts, and each chart's
/// figures as CSV. Read from the rollup the writer keeps (``DailyFiguresReading``), never from
/// history, so a page costs the same for ten users or ten million.
extension Daemon {
    static func dashboardPages(rollup: any DailyFiguresReading) -> [ConsolePage] {
        let figures = { @Sendable (environment: Environment) throws -> [DailyFigures] in
            let days = DashboardPage.days(endingOn: UTCDay(containing: WallClock.unixMilliseconds()))
            return try rollup.dailyFigures(days: days, environment: environment)
        }
        let page = ConsolePage(path: "/console/dashboard", navigationTitle: "Dashboard") { request in
            let environment = Self.dashboardEnvironment(request.query)
            let read: [DailyFigures]
            do {
                read = try figures(environment)
            } catch {
                return .page(title: "Dashboard", body: """
                    <h1>Dashboard</h1><p role="alert">The figures cannot be read now (the store is \
                    unavailable); try again in a moment.</p>
                    """, status: 503)
            }
            let other: Environment = environment == .production ? .sandbox : .production
            return .page(title: "Dashboard", body: """
                \(HTML(escapedMarkup: DashboardPage.render(figures: read, environment: environment)))
                <p><a href="/console/dashboard?environment=\(other.rawValue)">Show \(other.rawValue) \
                purchases</a>. Each figure is defined in docs/dashboard.md.</p>
                """)
        }
        let downloads = ConsolePage(path: DashboardCSV.pathPrefix, navigationTitle: nil,
                                    answersPathsBelow: true) { request in
            let name = String(request.http.pathWithoutQuery.dropFirst(DashboardCSV.pathPrefix.count))
            let environment = Self.dashboardEnvironment(request.query)
            guard name.hasSuffix(".csv"), let read = try? figures(environment),
                  let csv = DashboardCSV.csv(slug: String(name.dropLast(4)), figures: read) else {
                return .response(.text(404, "no such chart: the Dashboard links to each chart's CSV\n"))
            }
            var headers: HTTPHeaders = ["content-type": DashboardCSV.contentType]
            headers.add(name: "content-disposition", value: "attachment; filename=\"\(name)\"")
            return .response(HTTPResponse(status: 200, headers: headers, body: Array(csv.utf8)))
        }
        return [page, downloads]
    }

    /// `?environment=sandbox` shows sandbox purchases; anything else, production's.
    private static func dashboardEnvironment(_ query: FormFields) -> Environment {
        query["environment"] == Environment.sandbox.rawValue ? .sandbox : .production
    }
}
