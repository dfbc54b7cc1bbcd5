/// The opaque cursor of a change as clients see it (webhook bodies, `replay --from`).
///
/// `c1.` + the change log's sequence as 16 lowercase hex digits: the format
/// WatchEntitlementChanges issues too (i12-stream's `ChangeCursor`; whichever lands second makes
/// the daemon pass that one function to both), so a cursor from a watch replays webhooks and
/// one from a webhook body resumes a watch. Fixed-width hex sorts as strings in change order.
public enum ChangeCursorText {
    static let prefix = "c1."

    public static func text(_ sequence: Int64) -> String {
        let hex = String(UInt64(bitPattern: sequence), radix: 16)
        return prefix + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    /// The sequence of `text`, nil when it is not a cursor this server issued.
    public static func sequence(_ text: String) -> Int64? {
        guard text.hasPrefix(prefix) else { return nil }
        let digits = text.dropFirst(prefix.count)
        guard digits.count == 16, digits.allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
              let value = UInt64(digits, radix: 16), value <= UInt64(Int64.max)
        else { return nil }
        return Int64(value)
    }
}
