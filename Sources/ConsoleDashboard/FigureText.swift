/// Numbers as the dashboard prints them (stdlib only: no locale, the same on every machine).
enum FigureText {
    /// `1234567` as `1,234,567`.
    static func grouped(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return value < 0 ? "-" + text : text
    }

    /// Milli-units as units with the thousandths Apple's prices carry, trailing zeros after
    /// the second decimal dropped: `9990` as `9.99`, `1234` as `1.234`, `5000` as `5.00`.
    static func milliUnits(_ value: Int64, grouped isGrouped: Bool) -> String {
        let units = Int64(value.magnitude / 1000)
        let thousandths = Int(value.magnitude % 1000)
        var fraction = String(thousandths + 1000).dropFirst()
        if fraction.hasSuffix("0") { fraction = fraction.dropLast() }
        let whole = isGrouped ? grouped(units) : String(units)
        return (value < 0 ? "-" : "") + whole + "." + fraction
    }

    /// Milli-units exactly, with three decimals: what the CSV files carry.
    static func exactMilliUnits(_ value: Int64) -> String {
        let fraction = String(Int(value.magnitude % 1000) + 1000).dropFirst()
        return (value < 0 ? "-" : "") + String(value.magnitude / 1000) + "." + fraction
    }
}
