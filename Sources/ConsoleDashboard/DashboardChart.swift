import Entitlements

/// One chart of the dashboard: a series of ``DailyFigures`` with its name, its CSV link and
/// its fill pattern.
///
/// The six counts always show; revenue shows one chart per currency seen in the days shown
/// (``charts(for:)``), so a currency appears once Apple has reported a price in it.
public enum DashboardChart: Sendable, Hashable {
    case activeSubscriptions
    case newTrials
    case trialConversions
    case renewals
    case refunds
    case churn
    /// Revenue in one currency (ISO 4217, as Apple sends it), in milli-units.
    case revenue(currency: String)

    /// The counts, in the order the page shows them.
    public static let counts: [DashboardChart] = [
        .activeSubscriptions, .newTrials, .trialConversions, .renewals, .refunds, .churn,
    ]

    /// Every chart for `figures`: the counts, then revenue per currency in code order.
    public static func charts(for figures: [DailyFigures]) -> [DashboardChart] {
        let currencies = Set(figures.flatMap { $0.revenue.keys })
        return counts + currencies.sorted().map { .revenue(currency: $0) }
    }

    /// The chart whose ``slug`` is `slug` among those of `figures`: how a CSV route finds its
    /// chart without parsing the slug back.
    public static func chart(slug: String, for figures: [DailyFigures]) -> DashboardChart? {
        charts(for: figures).first { $0.slug == slug }
    }

    /// The heading, and the table's and the SVG's name.
    public var title: String {
        switch self {
        case .activeSubscriptions: "Active subscriptions"
        case .newTrials: "New trials"
        case .trialConversions: "Trial conversions"
        case .renewals: "Renewals"
        case .refunds: "Refunds"
        case .churn: "Churn"
        case let .revenue(currency): "Revenue (\(currency))"
        }
    }

    /// What one value counts, for the description and the table's column.
    public var unit: String {
        switch self {
        case .activeSubscriptions: "active subscriptions at the end of the day"
        case .newTrials: "free trials started"
        case .trialConversions: "trials converted to paid"
        case .renewals: "paid renewals"
        case .refunds: "refunds and revocations"
        case .churn: "subscriptions that ended without renewal"
        case let .revenue(currency): "revenue in \(currency)"
        }
    }

    /// The chart's name in URLs, ids and CSV file names: lowercase ASCII letters, digits and
    /// hyphens only. A currency that is not plain letters and digits is spelled in hex, so no
    /// text Apple sends can break a path or an id.
    public var slug: String {
        switch self {
        case .activeSubscriptions: "active-subscriptions"
        case .newTrials: "new-trials"
        case .trialConversions: "trial-conversions"
        case .renewals: "renewals"
        case .refunds: "refunds"
        case .churn: "churn"
        case let .revenue(currency):
            if !currency.isEmpty, currency.utf8.allSatisfy({ Self.isASCIIAlphanumeric($0) }) {
                "revenue-" + currency.lowercased()
            } else {
                "revenue-x" + currency.utf8.map { String($0, radix: 16) }.joined()
            }
        }
    }

    /// The stable link of the chart's CSV; the console routes it to ``DashboardCSV/csv(slug:figures:)``.
    public var csvPath: String { DashboardCSV.pathPrefix + slug + ".csv" }

    /// The chart's value on one day: a count, or milli-units for revenue.
    public func value(_ figures: DailyFigures) -> Int64 {
        switch self {
        case .activeSubscriptions: figures.activeSubscriptions
        case .newTrials: figures.newTrials
        case .trialConversions: figures.trialConversions
        case .renewals: figures.renewals
        case .refunds: figures.refunds
        case .churn: figures.churn
        case let .revenue(currency): figures.revenue[currency] ?? 0
        }
    }

    /// A value as people read it: "1,234", or "9.99" for revenue.
    public func text(_ value: Int64) -> String {
        if case .revenue = self { return FigureText.milliUnits(value, grouped: true) }
        return FigureText.grouped(value)
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }
}
