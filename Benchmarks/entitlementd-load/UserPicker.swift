import Foundation
import SeededRandom

/// Chooses which user each request asks about: always one, uniformly at random, or from a
/// Zipf-like distribution where a few users are asked about far more often than the rest.
///
/// Deterministic for a seed, so two runs (or an A/B pair) ask for the same sequence of users.
/// Zipf ranks are spread over the user ids by a bijection (rank * a mod N), so the hot set is
/// not u0, u1, u2, ... (which would be all the even, ACTIVE users of the bench data first).
struct UserPicker {
    enum Distribution: Equatable {
        case single(index: Int)
        case uniform
        /// P(rank r) proportional to 1 / r^exponent, r = 1...users.
        case zipf(exponent: Double)
    }

    let users: Int
    let distribution: Distribution
    private var random: SplitMix64
    /// Zipf only: cumulative probabilities by rank, ascending, last = 1.
    private let cumulative: [Double]
    /// Multiplier coprime to `users`, so rank -> index is a permutation.
    private let spread: Int

    init(users: Int, distribution: Distribution, seed: UInt64) {
        self.users = users
        self.distribution = distribution
        random = SplitMix64(seed: seed)
        if case let .zipf(exponent) = distribution {
            var running = 0.0
            var table = [Double](repeating: 0, count: users)
            for rank in 0..<users {
                running += 1 / pow(Double(rank + 1), exponent)
                table[rank] = running
            }
            cumulative = table.map { $0 / running }
        } else {
            cumulative = []
        }
        var multiplier = 2_654_435_761 % max(users, 1)
        while Self.gcd(multiplier, users) != 1 { multiplier += 1 }
        spread = multiplier
    }

    /// The next user's index in 0..<users.
    mutating func next() -> Int {
        switch distribution {
        case let .single(index): return index
        case .uniform: return Int(random.next() % UInt64(users))
        case .zipf:
            let u = Double(random.next() >> 11) / Double(1 << 53)
            return userIndex(rank: rank(atCumulative: u))
        }
    }

    /// The user holding Zipf rank `rank` (0 = hottest).
    func userIndex(rank: Int) -> Int { (rank &* spread) % users }

    /// Share of requests that go to the `top` hottest users: what a perfect cache of `top`
    /// entries would hit.
    func share(ofTop top: Int) -> Double {
        switch distribution {
        case .single: return 1
        case .uniform: return min(1, Double(top) / Double(users))
        case .zipf: return top <= 0 ? 0 : cumulative[min(top, users) - 1]
        }
    }

    /// The first rank whose cumulative probability reaches `u` (binary search).
    private func rank(atCumulative u: Double) -> Int {
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < u { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
