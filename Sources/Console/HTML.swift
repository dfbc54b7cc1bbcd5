import ServiceRuntime

/// A fragment of HTML that is safe to send: markup written in this module, with every value
/// interpolated into it escaped.
///
/// The console's one escaping boundary. A string literal is markup (the views write it); a
/// `String` interpolated into one is text and is escaped, whatever it holds, so a user id
/// `<img src=x onerror=alert(1)>` reaches the browser as text. Only another ``HTML`` (already
/// safe) is inserted as it is. Views never build markup by concatenating strings.
public struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The markup, ready for the response body.
    public private(set) var rendered: String

    public init(stringLiteral markup: String) { rendered = markup }

    public init(stringInterpolation: Interpolation) { rendered = stringInterpolation.rendered }

    /// Text shown as it is: escaped.
    public init(text: String) { rendered = HTML.escape(text) }

    /// Markup made by a renderer that escapes every string it puts in (the dashboard's charts),
    /// taken as it is.
    public init(escapedMarkup: String) { rendered = escapedMarkup }

    public static let empty: HTML = ""

    public var description: String { rendered }

    /// Fragments one after the other.
    public static func joined(_ parts: [HTML]) -> HTML {
        var html = HTML.empty
        for part in parts { html.rendered += part.rendered }
        return html
    }

    public struct Interpolation: StringInterpolationProtocol {
        var rendered = ""

        public init(literalCapacity: Int, interpolationCount: Int) { rendered.reserveCapacity(literalCapacity * 2) }

        public mutating func appendLiteral(_ markup: String) { rendered += markup }

        /// Text: escaped, for element content and double-quoted attribute values alike.
        public mutating func appendInterpolation(_ text: String) { rendered += HTML.escape(text) }

        public mutating func appendInterpolation(_ number: some BinaryInteger) { rendered += String(number) }

        public mutating func appendInterpolation(_ html: HTML) { rendered += html.rendered }

        public mutating func appendInterpolation(_ parts: [HTML]) { rendered += HTML.joined(parts).rendered }
    }

    /// `&`, `<`, `>`, `"` and `'` as character references: enough for text and for attribute
    /// values in either quote (the views always quote attributes).
    public static func escape(_ text: String) -> String { HTMLEscaping.escape(text) }
}
