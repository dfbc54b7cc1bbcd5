/// Parses the `grpc-timeout` header: 1 to 8 ASCII digits and a unit (H M S m u n).
///
/// The spec caps the digits at 8 so the value fits easily; anything else is malformed and the
/// call is rejected rather than run with no deadline.
public enum GRPCTimeout {
    /// The timeout in nanoseconds, or nil when the header is malformed.
    public static func nanoseconds(_ header: String) -> Int64? {
        let utf8 = Array(header.utf8)
        guard utf8.count >= 2, utf8.count <= 9 else { return nil }
        var value: Int64 = 0
        for byte in utf8.dropLast() {
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        let perUnit: Int64
        switch utf8.last! {
        case UInt8(ascii: "H"): perUnit = 3_600_000_000_000
        case UInt8(ascii: "M"): perUnit = 60_000_000_000
        case UInt8(ascii: "S"): perUnit = 1_000_000_000
        case UInt8(ascii: "m"): perUnit = 1_000_000
        case UInt8(ascii: "u"): perUnit = 1_000
        case UInt8(ascii: "n"): perUnit = 1
        default: return nil
        }
        let (product, overflow) = value.multipliedReportingOverflow(by: perUnit)
        return overflow ? Int64.max : product
    }
}
