import Foundation
import SeededRandom

/// The shared SplitMix64 with its seed printed, so a random test that fails can be rerun
/// with the same inputs (`ENTITLEMENTD_TEST_SEED=<seed> swift test --filter ...`).
struct SeededGenerator: RandomNumberGenerator {
    let seed: UInt64
    private var generator: SplitMix64

    /// Seeds from `ENTITLEMENTD_TEST_SEED` when set, otherwise at random; prints the seed either way.
    init(for test: String) {
        let fromEnvironment = ProcessInfo.processInfo.environment["ENTITLEMENTD_TEST_SEED"].flatMap { UInt64($0) }
        seed = fromEnvironment ?? UInt64.random(in: .min ... .max)
        generator = SplitMix64(seed: seed)
        print("\(test): random seed \(seed) (rerun with ENTITLEMENTD_TEST_SEED=\(seed))")
    }

    mutating func next() -> UInt64 { generator.next() }
}
