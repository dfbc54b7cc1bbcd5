import Foundation

/// A SplitMix64 generator whose seed is printed, so a random test that fails can be rerun
/// with the same inputs (`ENTITLEMENTD_TEST_SEED=<seed> swift test --filter ...`).
struct SeededGenerator: RandomNumberGenerator {
    let seed: UInt64
    private var state: UInt64

    /// Seeds from `ENTITLEMENTD_TEST_SEED` when set, otherwise at random; prints the seed either way.
    init(for test: String) {
        let fromEnvironment = ProcessInfo.processInfo.environment["ENTITLEMENTD_TEST_SEED"].flatMap { UInt64($0) }
        seed = fromEnvironment ?? UInt64.random(in: .min ... .max)
        state = seed
        print("\(test): random seed \(seed) (rerun with ENTITLEMENTD_TEST_SEED=\(seed))")
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
