@testable import ConsoleDashboard
import Entitlements
import ServiceRuntime
import Testing

/// The dashboard's HTML, SVG and CSV from typed figures.
@Suite struct DashboardRenderingTests {
    static let today = UTCDay(containing: 1_796_601_600_000)  // 2026-12-07
    static let days = DashboardPage.days(endingOn: today)

    /// 90 days of zeros, with `edits` applied to the days they name (offset from the first).
    static func figures(_ edits: [Int: (inout DailyFigures) -> Void] = [:]) -> [DailyFigures] {
        days.enumerated().map { offset, day in
            var figures = DailyFigures(day: day)
            edits[offset]?(&figures)
            return figures
        }
    }

    @Test(arguments: [
        ("plain", "plain"),
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
        ("a & b", "a &amp; b"),
        ("\"quoted\" 'single'", "&quot;quoted&quot; &#39;single&#39;"),
        ("", ""),
        ("naïve €", "naïve €"),
    ])
    func escaping(_ text: String, _ escaped: String) {
        #expect(HTMLEscaping.escape(text) == escaped)
    }

    @Test(arguments: [
        (DashboardChart.activeSubscriptions, "date,active_subscriptions", "active-subscriptions"),
        (.newTrials, "date,new_trials", "new-trials"),
        (.trialConversions, "date,trial_conversions", "trial-conversions"),
        (.renewals, "date,renewals", "renewals"),
        (.refunds, "date,refunds", "refunds"),
        (.churn, "date,churn", "churn"),
        (.revenue(currency: "USD"), "date,revenue_usd", "revenue-usd"),
        (.revenue(currency: "<b>"), "date,revenue_x3c623e", "revenue-x3c623e"),
    ])
    func csvHeaderAndLink(_ chart: DashboardChart, _ header: String, _ slug: String) {
        let lines = DashboardCSV.csv(chart: chart, figures: Self.figures()).split(separator: "\r\n")
        #expect(lines.first.map(String.init) == header)
        #expect(lines.count == 91, "a header and one row per day")
        #expect(chart.slug == slug)
        #expect(chart.csvPath == "/console/dashboard/\(slug).csv")
    }

    @Test func emptyDaysRenderZerosAndNoBars() {
        let figures = Self.figures()
        let csv = DashboardCSV.csv(chart: .newTrials, figures: figures)
        #expect(csv.hasPrefix("date,new_trials\r\n2026-09-09,0\r\n"))
        #expect(csv.hasSuffix("2026-12-07,0\r\n"))
        let page = DashboardPage.render(figures: figures)
        #expect(DashboardChart.charts(for: figures) == DashboardChart.counts, "no revenue chart without prices")
        #expect(occurrences(of: "<svg", in: page) == 6)
        #expect(!page.contains("<rect"), "no bar for a zero")
        #expect(occurrences(of: ">Download CSV</a>", in: page) == 6)
        #expect(occurrences(of: "<caption>", in: page) == 6)
    }

    @Test func revenueIsOneChartPerCurrencyWithExactCSVAmounts() throws {
        let figures = Self.figures([
            3: { $0.revenue = ["USD": 9_990, "EUR": 1_000_500] },
            4: { $0.revenue = ["USD": 5] },
        ])
        #expect(DashboardChart.charts(for: figures).suffix(2) == [.revenue(currency: "EUR"), .revenue(currency: "USD")])
        let csv = try #require(DashboardCSV.csv(slug: "revenue-usd", figures: figures))
        #expect(csv.contains("\r\n2026-09-12,9.990\r\n2026-09-13,0.005\r\n"))
        #expect(DashboardCSV.csv(slug: "revenue-gbp", figures: figures) == nil)
        #expect(DashboardCSV.csv(slug: "../etc/passwd", figures: figures) == nil)
        let page = DashboardPage.render(figures: figures)
        #expect(page.contains("<td>1,000.50</td>"), "EUR in the table, grouped")
        #expect(page.contains("<title>2026-09-12: 9.99</title>"), "each bar names its day and value")
    }

    @Test func everyStringFromTheDataIsEscaped() {
        let hostile = "<img src=x onerror=alert(1)>"
        let figures = Self.figures([0: { $0.revenue = [hostile: 1_000] }])
        let page = DashboardPage.render(figures: figures)
        #expect(!page.contains("<img"))
        #expect(page.contains("Revenue (&lt;img src=x onerror=alert(1)&gt;)"))
        let slug = DashboardChart.revenue(currency: hostile).slug
        #expect(slug.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" })
        #expect(page.contains("href=\"/console/dashboard/\(slug).csv\""))
    }

    @Test func chartsAreNamedDescribedAndPatternedWithoutScriptOrExternalResources() {
        let figures = Self.figures([89: { $0.activeSubscriptions = 1_234_567; $0.refunds = 2 }])
        let page = DashboardPage.render(figures: figures)
        #expect(page.contains("aria-labelledby=\"chart-refunds-title chart-refunds-desc\""))
        #expect(page.contains("<title id=\"chart-active-subscriptions-title\">Active subscriptions per day</title>"))
        #expect(page.contains("1,234,567 on the last day, highest 1,234,567 on 2026-12-07"))
        #expect(page.contains("<h2 id=\"chart-churn-heading\">Churn</h2>"))
        // Each series is told apart by its pattern's angle, not only by colour.
        let angles = DashboardChart.counts.map { ChartSVG.pattern($0, id: "p") }
        #expect(Set(angles).count == DashboardChart.counts.count)
        for forbidden in ["<script", "javascript:", "src=", "href=\"http", "style="] {
            #expect(!page.contains(forbidden), "\(forbidden)")
        }
        // No event handler attribute (` onclick=`, ...): after " on", never letters then "=".
        let handlers = page.split(separator: " on", omittingEmptySubsequences: false).dropFirst().filter {
            let name = $0.prefix { $0.isLetter }
            return !name.isEmpty && $0.dropFirst(name.count).first == "="
        }
        #expect(handlers.isEmpty)
    }

    @Test(arguments: [
        (Int64(0), "0"), (999, "999"), (1_000, "1,000"), (1_234_567, "1,234,567"), (-12_345, "-12,345"),
    ])
    func groupedNumbers(_ value: Int64, _ text: String) {
        #expect(FigureText.grouped(value) == text)
    }

    @Test(arguments: [
        (Int64(9_990), "9.99", "9.990"), (5_000, "5.00", "5.000"), (1_234, "1.234", "1.234"), (5, "0.005", "0.005"),
        (1_234_567_890, "1,234,567.89", "1234567.890"),
    ])
    func milliUnits(_ value: Int64, _ shown: String, _ exact: String) {
        #expect(FigureText.milliUnits(value, grouped: true) == shown)
        #expect(FigureText.exactMilliUnits(value) == exact)
    }

    @Test func theDashboardShowsNinetyDaysEndingToday() {
        #expect(Self.days.count == 90)
        #expect(Self.days.upperBound.text == "2026-12-07")
        #expect(Self.days.lowerBound.text == "2026-09-09")
    }

    private func occurrences(of needle: String, in text: String) -> Int {
        text.split(separator: needle, omittingEmptySubsequences: false).count - 1
    }
}
