/// Which webhook deliveries the simulator drops (never posts), so a missed notification (our
/// outage, a bad deploy, Apple giving up) can be shown and then repaired by reconciliation.
///
/// Every Nth counts delivery attempts, duplicates included, from when the policy was set, in
/// the order they are planned: ``WebhookDelivery`` asks when a notification is submitted.
public struct WebhookDropPolicy: Sendable, Hashable, CustomStringConvertible {
    public enum Mode: Sendable, Hashable {
        case none
        case all
        case everyNth(Int)
    }

    public private(set) var mode: Mode
    private var attempts = 0

    public init(_ mode: Mode = .none) {
        if case .everyNth(let n) = mode, n <= 1 {
            self.mode = n == 1 ? .all : .none
        } else {
            self.mode = mode
        }
    }

    /// "none", "all", or a whole number N >= 1 (drop every Nth); nil for anything else.
    public init?(text: String) {
        switch text.lowercased() {
        case "none", "off", "0": self.init(.none)
        case "all": self.init(.all)
        default:
            guard let n = Int(text), n >= 1 else { return nil }
            self.init(.everyNth(n))
        }
    }

    /// Whether to drop the next delivery attempt.
    public mutating func shouldDrop() -> Bool {
        attempts += 1
        switch mode {
        case .none: return false
        case .all: return true
        case .everyNth(let n): return attempts % n == 0
        }
    }

    public var description: String {
        switch mode {
        case .none: "none"
        case .all: "all"
        case .everyNth(let n): "every \(n)th"
        }
    }
}
