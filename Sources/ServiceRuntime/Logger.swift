import Foundation
import Synchronization

/// One line per event on stderr, as text or JSON, with key-value fields.
///
/// Only the composition root creates one; libraries take it (or a closure) as a parameter, so
/// tests can inject a ``LogRecorder`` and assert on what was logged. Callers never pass secrets
/// or request bodies as fields.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }

        var name: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    public enum Format: String, Sendable { case text, json }

    public let minimumLevel: Level
    public let format: Format
    private let sink: @Sendable (String) -> Void

    public init(minimumLevel: Level = .info, format: Format = .text,
                sink: @escaping @Sendable (String) -> Void = Logger.standardError) {
        self.minimumLevel = minimumLevel
        self.format = format
        self.sink = sink
    }

    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    public func debug(_ message: String, _ fields: [(String, String)] = []) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: [(String, String)] = []) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: [(String, String)] = []) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: [(String, String)] = []) { log(.error, message, fields) }

    public func log(_ level: Level, _ message: String, _ fields: [(String, String)]) {
        guard level >= minimumLevel else { return }
        let time = Date().ISO8601Format(.iso8601.time(includingFractionalSeconds: true).year().month().day())
        switch format {
        case .text:
            var line = "\(time) \(level.name) \(message)"
            for (key, value) in fields { line += " \(key)=\(Self.textValue(value))" }
            sink(line)
        case .json:
            var object: [String: String] = ["time": time, "level": level.name, "message": message]
            for (key, value) in fields { object[key] = value }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            sink(String(decoding: data, as: UTF8.self))
        }
    }
}

extension Logger {
    /// A field value as the text format writes it: bare when it is one plain word, else quoted
    /// with `\`, `"` and control characters escaped.
    ///
    /// Values carry caller-controlled text (user ids, Apple's error text): written raw, a newline
    /// or a quote in one would forge a log line or a field for whoever reads the log.
    static func textValue(_ value: String) -> String {
        let needsQuotes = value.unicodeScalars.contains { scalar in
            scalar == " " || scalar == "\"" || scalar == "\\" || scalar.value < 0x20 || scalar.value == 0x7f
        }
        guard needsQuotes else { return value }
        var quoted = "\""
        quoted.append(value) { scalar in
            switch scalar {
            // JSON's escapes, but backspace and form feed spelled out as the text format always
            // wrote them, and DEL escaped too: no terminal showing the log acts on any of them.
            case "\u{08}", "\u{0C}", "\u{7F}": JSONString.unicodeEscape(scalar)
            default: JSONString.escape(scalar)
            }
        }
        return quoted + "\""
    }
}

/// Collects log lines in memory, for tests.
public final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])
    public init() {}
    public var sink: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
    public var recorded: [String] { lines.withLock { $0 } }
}
