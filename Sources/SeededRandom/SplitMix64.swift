/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny seedable generator whose whole state is one
/// word, so a randomized test, a simulated delivery plan or a load run replays exactly from its
/// seed. Not for secrets. One copy for the whole repository: the copies it replaced had drifted
/// (two carried a mistyped multiplier and so were not SplitMix64 at all).
///
/// Inlinable, so a load generator drawing a number per request pays no call across modules.
@frozen
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    @inlinable
    public init(seed: UInt64) { state = seed }

    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
