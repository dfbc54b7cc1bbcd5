/// The opaque cursor of a change as clients see it (webhook bodies, `replay --from`).
///
/// The decimal sequence: strictly increasing with it, and a cursor copied from a body or
/// a watch is accepted back as is. Clients must treat it as opaque.
public enum ChangeCursorText {
    public static func text(_ sequence: Int64) -> String { String(sequence) }

    /// The sequence of `text`, nil when it is not a cursor this server issued.
    public static func sequence(_ text: String) -> Int64? {
        guard let value = Int64(text), value >= 0 else { return nil }
        return value
    }
}
