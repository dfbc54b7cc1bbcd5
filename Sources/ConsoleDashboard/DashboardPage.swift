import Entitlements
import ServiceRuntime

/// The dashboard as an HTML fragment for the console's page: a heading, then per chart a
/// section with its SVG, a "Download CSV" link and the same numbers as a table.
///
/// Entry point: ``render(figures:environment:)`` with the figures of ``days(endingOn:)``
/// (the last 90 UTC days) from ``DailyFiguresReading``. Pure: no I/O, no script, no external
/// resource, every string escaped by ``HTMLEscaping/escape(_:)``; styling is left to the
/// console's stylesheet (classes `dashboard`, `dashboard-chart`, `dashboard-table`), and the
/// charts draw in `currentColor`, so they follow the page's text colour.
public enum DashboardPage {
    /// How many days the dashboard shows.
    public static let dayCount: Int64 = 90

    /// The ``dayCount`` days ending with `today` (the day of the request, UTC).
    public static func days(endingOn today: UTCDay) -> ClosedRange<UTCDay> {
        today.advanced(by: -(dayCount - 1))...today
    }

    /// The fragment for `figures` (one per day, oldest first, as ``DailyFiguresReading`` answers).
    public static func render(figures: [DailyFigures], environment: Environment = .production) -> String {
        var html = "<section class=\"dashboard\" aria-labelledby=\"dashboard-heading\">\n"
        html += "<h1 id=\"dashboard-heading\">Dashboard</h1>\n"
        if let first = figures.first, let last = figures.last {
            html += "<p>Per UTC day from \(HTMLEscaping.escape(first.day.text)) to "
                + "\(HTMLEscaping.escape(last.day.text)), \(HTMLEscaping.escape(environment.rawValue)) "
                + "transactions. Revenue is what Apple's signed transactions say was paid, "
                + "before refunds and Apple's commission.</p>\n"
        } else {
            html += "<p>No days to show.</p>\n"
        }
        for chart in DashboardChart.charts(for: figures) {
            html += section(chart, figures: figures, environment: environment)
        }
        return html + "</section>\n"
    }

    /// One chart's section: heading, SVG, CSV link, and the table (inside `<details>`, so the
    /// page stays short; screen readers and keyboards open it like any disclosure).
    static func section(_ chart: DashboardChart, figures: [DailyFigures], environment: Environment = .production)
        -> String {
        let id = "chart-" + chart.slug
        let title = HTMLEscaping.escape(chart.title)
        var html = "<section class=\"dashboard-series\" aria-labelledby=\"\(id)-heading\">\n"
        html += "<h2 id=\"\(id)-heading\">\(title)</h2>\n"
        html += ChartSVG.render(chart, figures: figures) + "\n"
        // The download holds the figures shown: the same environment.
        let link = chart.csvPath + (environment == .production ? "" : "?environment=\(environment.rawValue)")
        html += "<p><a href=\"\(HTMLEscaping.escape(link))\" type=\"text/csv\" download>Download CSV</a></p>\n"
        html += "<details><summary>\(title): table</summary>\n"
        html += "<table class=\"dashboard-table\"><caption>\(title) per day</caption>\n"
        html += "<thead><tr><th scope=\"col\">Date (UTC)</th>"
            + "<th scope=\"col\">\(HTMLEscaping.escape(chart.unit))</th></tr></thead>\n<tbody>\n"
        for day in figures {
            html += "<tr><th scope=\"row\">\(HTMLEscaping.escape(day.day.text))</th>"
                + "<td>\(HTMLEscaping.escape(chart.text(chart.value(day))))</td></tr>\n"
        }
        return html + "</tbody></table></details>\n</section>\n"
    }
}
