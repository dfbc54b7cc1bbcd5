import Entitlements
import ServiceRuntime

/// One chart as an SVG bar chart, one bar per day, readable without colour: each series has
/// its own fill pattern (stripes at an angle, or dots), the axes carry their numbers and dates
/// as text, every bar has a `<title>` with its day and value, and the SVG is named by its
/// `<title>` and described by its `<desc>` (the page adds the same numbers as a table).
enum ChartSVG {
    static let width = 720
    static let height = 220
    static let left = 64
    static let right = 8
    static let top = 12
    static let bottom = 36

    static func render(_ chart: DashboardChart, figures: [DailyFigures]) -> String {
        let id = "chart-" + chart.slug
        let values = figures.map(chart.value)
        let scale = max(1, values.max() ?? 0)
        let plotWidth = Double(width - left - right), plotHeight = Double(height - top - bottom)
        let slot = plotWidth / Double(max(1, figures.count))
        var svg = """
            <svg class="dashboard-chart" role="img" viewBox="0 0 \(width) \(height)" \
            width="\(width)" height="\(height)" aria-labelledby="\(id)-title \(id)-desc" \
            xmlns="http://www.w3.org/2000/svg">
            <title id="\(id)-title">\(HTMLEscaping.escape(chart.title + " per day"))</title>
            <desc id="\(id)-desc">\(HTMLEscaping.escape(description(chart, figures: figures)))</desc>
            <defs>\(pattern(chart, id: id + "-fill"))</defs>

            """
        // Axes: the baseline and the scale's top, each labelled with its number.
        let baseline = top + Int(plotHeight)
        svg += "<g class=\"axis\" fill=\"currentColor\" font-size=\"12\">"
        svg += "<line x1=\"\(left)\" y1=\"\(baseline)\" x2=\"\(width - right)\" y2=\"\(baseline)\" "
            + "stroke=\"currentColor\"/>"
        svg += "<line x1=\"\(left)\" y1=\"\(top)\" x2=\"\(left)\" y2=\"\(baseline)\" stroke=\"currentColor\"/>"
        for (value, y) in [(Int64(0), baseline), (scale, top)] {
            svg += "<text x=\"\(left - 6)\" y=\"\(y + 4)\" text-anchor=\"end\">"
                + "\(HTMLEscaping.escape(chart.text(value)))</text>"
        }
        // The first, middle and last days: the dates at the ends line up with the plot's edges.
        for index in Set([0, figures.count / 2, figures.count - 1]).sorted() where figures.indices.contains(index) {
            let (x, anchor): (Double, String) = index == 0 ? (Double(left), "start")
                : index == figures.count - 1 ? (Double(width - right), "end")
                : (Double(left) + slot * (Double(index) + 0.5), "middle")
            svg += "<text x=\"\(format(x))\" y=\"\(baseline + 20)\" text-anchor=\"\(anchor)\">"
                + "\(HTMLEscaping.escape(figures[index].day.text))</text>"
        }
        svg += "</g>\n<g class=\"bars\" fill=\"url(#\(id)-fill)\" stroke=\"currentColor\" stroke-width=\"1\">"
        for (index, day) in figures.enumerated() {
            let value = values[index]
            guard value > 0 else { continue }
            let barHeight = max(1, plotHeight * Double(value) / Double(scale))
            let x = Double(left) + slot * Double(index) + slot * 0.1
            svg += "<rect x=\"\(format(x))\" y=\"\(format(Double(baseline) - barHeight))\" "
                + "width=\"\(format(slot * 0.8))\" height=\"\(format(barHeight))\">"
                + "<title>\(HTMLEscaping.escape(day.day.text + ": " + chart.text(value)))</title></rect>"
        }
        svg += "</g>\n</svg>"
        return svg
    }

    /// What the chart shows in words: the span, the latest value and the highest.
    static func description(_ chart: DashboardChart, figures: [DailyFigures]) -> String {
        guard let first = figures.first, let last = figures.last else { return "No days to show." }
        let values = figures.map(chart.value)
        let peak = values.indices.max { values[$0] < values[$1] } ?? 0
        return "\(chart.title), one bar per UTC day from \(first.day.text) to \(last.day.text): "
            + "\(chart.text(values.last ?? 0)) on the last day, highest \(chart.text(values[peak])) "
            + "on \(figures[peak].day.text)."
    }

    /// A fill that tells the series apart without colour: stripes at an angle of their own
    /// for the counts, dots for revenue.
    static func pattern(_ chart: DashboardChart, id: String) -> String {
        let angle: Int
        switch chart {
        case .activeSubscriptions: angle = 0
        case .newTrials: angle = 45
        case .trialConversions: angle = 90
        case .renewals: angle = 135
        case .refunds: angle = 30
        case .churn: angle = 150
        case .revenue:
            return "<pattern id=\"\(HTMLEscaping.escape(id))\" width=\"6\" height=\"6\" "
                + "patternUnits=\"userSpaceOnUse\">"
                + "<circle cx=\"3\" cy=\"3\" r=\"1.6\" fill=\"currentColor\"/></pattern>"
        }
        return "<pattern id=\"\(HTMLEscaping.escape(id))\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
            + "patternTransform=\"rotate(\(angle))\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
            + "stroke=\"currentColor\" stroke-width=\"2\"/></pattern>"
    }

    /// Coordinates with one decimal: enough for a pixel, short in the page.
    static func format(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(abs(tenths % 10))"
    }
}
