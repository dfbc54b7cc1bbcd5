import Entitlements

/// Each chart's numbers as CSV: a header row, then one row per day, oldest first.
///
/// Entry points for the console's routes: `GET /console/dashboard/<slug>.csv` answers
/// ``csv(slug:figures:)`` (nil: 404) with ``contentType``; each chart's link is
/// ``DashboardChart/csvPath``.
public enum DashboardCSV {
    /// Where every chart's CSV lives: ``DashboardChart/csvPath`` is this, the slug and `.csv`.
    public static let pathPrefix = "/console/dashboard/"
    public static let contentType = "text/csv; charset=utf-8"

    /// The CSV of the chart named `slug` (``DashboardChart/slug``) among `figures`' charts,
    /// or nil when there is none (an unknown name, or a currency without revenue in the days).
    public static func csv(slug: String, figures: [DailyFigures]) -> String? {
        DashboardChart.chart(slug: slug, for: figures).map { csv(chart: $0, figures: figures) }
    }

    /// `date,<column>` then `YYYY-MM-DD,<value>` per day; counts as integers, revenue in units
    /// with three decimals (Apple's milli-units exactly: `9.990`). Lines end in CRLF (RFC 4180).
    public static func csv(chart: DashboardChart, figures: [DailyFigures]) -> String {
        var lines = ["date," + field(column(chart))]
        for day in figures {
            let value = chart.value(day)
            let text: String
            if case .revenue = chart { text = FigureText.exactMilliUnits(value) } else { text = String(value) }
            lines.append(day.day.text + "," + text)
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The value column's header: the slug with underscores (`new_trials`, `revenue_usd`).
    public static func column(_ chart: DashboardChart) -> String {
        String(chart.slug.map { $0 == "-" ? "_" : $0 })
    }

    /// `text` as one CSV field: quoted when it holds a comma, quote or line break, and
    /// prefixed with `'` when a spreadsheet would read it as a formula.
    static func field(_ text: String) -> String {
        var value = text
        if let first = value.first, "=+-@".contains(first) { value = "'" + value }
        guard value.contains(where: { ",\"\r\n".contains($0) }) else { return value }
        return "\"" + value.map { $0 == "\"" ? "\"\"" : String($0) }.joined() + "\""
    }
}
