/// Decimal text of integers, for the columns and records that keep numbers standing for text.
public enum DecimalDigits {
    /// `value`'s decimal digits, `-` first when negative (what SQLite's text of an INTEGER is),
    /// written into a stack buffer: no generic integer printing, and a String that allocates
    /// only when it is longer than 15 bytes. The one such printer: SQLite's INTEGER columns read
    /// as text, and the store's record and event-id decoding.
    public static func text(_ value: Int64) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var rest = value.magnitude
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest != 0
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[start...]), as: UTF8.self)
        }
    }
}
