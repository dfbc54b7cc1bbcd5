import Synchronization

/// Chains that passed full verification, keyed by the exact certificate bytes.
///
/// Apple signs every token of a period with one leaf under one intermediate, so nearly every
/// token repeats a chain already verified; a hit skips parsing and both P-384 chain
/// signatures, leaving the per-token validity check and the ES256 signature. The key holds
/// all three certificates' bytes (the root by identity), so a hit is exactly the chain that
/// was verified before: caching only the (intermediate, root) pair would still pay one P-384
/// verification per token for the leaf. Only verified chains enter, so an attacker cannot fill
/// the cache; the bound only guards against Apple rotating through many leaves in one process.
final class VerifiedChainCache: Sendable {
    struct Key: Hashable {
        let anchor: ObjectIdentifier
        let intermediate: [UInt8]
        let leaf: [UInt8]

        /// Hashes the bytes in bulk; the synthesized hash feeds the hasher one byte at a time.
        func hash(into hasher: inout Hasher) {
            hasher.combine(anchor)
            hasher.combine(intermediate.count)
            intermediate.withUnsafeBytes { hasher.combine(bytes: $0) }
            leaf.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private let capacity: Int
    private let entries = Mutex<[Key: VerifiedChain]>([:])

    init(capacity: Int) { self.capacity = capacity }

    func chain(for key: Key) -> VerifiedChain? {
        entries.withLock { $0[key] }
    }

    func insert(_ chain: VerifiedChain, for key: Key) {
        entries.withLock { entries in
            // Eviction is rare (leaf rotation); dropping everything keeps the code obvious.
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = chain
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
