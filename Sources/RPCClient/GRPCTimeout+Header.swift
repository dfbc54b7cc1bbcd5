import RPCCore
import ServiceRuntime

extension GRPCTimeout {
    /// The `grpc-timeout` value for `duration`: the finest unit whose count fits the spec's 8
    /// digits, rounded up so a short timeout never reads as "already expired".
    static func header(for duration: Duration) -> String {
        guard duration > .zero else { return "1n" }
        let total = duration.inNanosecondsSaturating
        let units: [(perUnit: Int64, suffix: String)] = [
            (1, "n"), (1_000, "u"), (1_000_000, "m"), (1_000_000_000, "S"),
            (60_000_000_000, "M"), (3_600_000_000_000, "H"),
        ]
        for unit in units {
            let count = total / unit.perUnit + (total % unit.perUnit == 0 ? 0 : 1)
            if count <= 99_999_999 { return "\(count)\(unit.suffix)" }
        }
        return "99999999H"
    }
}
