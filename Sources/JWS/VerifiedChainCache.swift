import Foundation
import Synchronization

/// Chains that passed full verification, keyed by the exact certificate bytes, and the JOSE
/// headers (as sent, base64url) that named them.
///
/// Apple signs every token of a period with one leaf under one intermediate, so nearly every
/// token repeats a chain already verified; a hit skips parsing and both P-384 chain
/// signatures, leaving the per-token validity check and the ES256 signature. The chain key holds
/// all three certificates' bytes (the root by identity), so a hit is exactly the chain that
/// was verified before: caching only the (intermediate, root) pair would still pay one P-384
/// verification per token for the leaf.
///
/// Apple's header text is also the same for every token of a leaf, and everything checked about
/// a header (alg, no crit, three x5c entries, the root byte-equal to a trusted one, the chain)
/// is a property of its bytes. So a header text seen before skips even the base64 and JSON
/// decoding of its ~5 KB, which was most of the remaining per-token work besides ES256, and
/// the hashing of it too: the header remembers SHA-256's state after its text
/// (``ES256SigningPrefix``), so a token hashes only its payload.
///
/// Nothing a token brings itself is remembered: each one still gets the validity of all three
/// certificates at its own time and its own ES256 signature over its whole `header.payload`.
/// Only headers and chains that passed those checks enter, so an attacker cannot fill the cache;
/// the bound only guards against Apple rotating through many leaves in one process.
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

    /// A JOSE header's base64url text, compared in full but hashed by its ends: the leaf (whose
    /// serial number comes first) makes the start unique, and a collision only costs a compare.
    struct HeaderText: Hashable {
        let bytes: ArraySlice<UInt8>

        func hash(into hasher: inout Hasher) {
            hasher.combine(bytes.count)
            bytes.withUnsafeBytes { raw in
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.prefix(512)))
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: raw.suffix(256)))
            }
        }

        static func == (lhs: HeaderText, rhs: HeaderText) -> Bool {
            guard lhs.bytes.count == rhs.bytes.count else { return false }
            guard !lhs.bytes.isEmpty else { return true }
            return lhs.bytes.withUnsafeBytes { left in
                rhs.bytes.withUnsafeBytes { right in memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
            }
        }
    }

    /// A header that passed every header and chain check: its decoded JSON, its chain, and
    /// the signing input's hash state after the header (``ES256SigningPrefix``).
    struct KnownHeader: Sendable {
        let header: [UInt8]
        let chain: VerifiedChain
        let prefix: ES256SigningPrefix
    }

    private let capacity: Int
    private let chains = Mutex<[Key: VerifiedChain]>([:])
    private let headers = Mutex<[HeaderText: KnownHeader]>([:])
    /// Counted on the insert paths only, which run after a miss: a hit pays nothing for them.
    private let headerChecks = Atomic<Int>(0)
    private let chainVerifications = Atomic<Int>(0)

    init(capacity: Int) { self.capacity = capacity }

    func chain(for key: Key) -> VerifiedChain? {
        chains.withLock { $0[key] }
    }

    func insert(_ chain: VerifiedChain, for key: Key) {
        chainVerifications.add(1, ordering: .relaxed)
        chains.withLock { Self.insert(chain, for: key, into: &$0, capacity: capacity) }
    }

    func header(for text: ArraySlice<UInt8>) -> KnownHeader? {
        headers.withLock { $0[HeaderText(bytes: text)] }
    }

    /// Remembers a header whose checks and chain all passed; the slice keeps its token's bytes.
    func insert(_ known: KnownHeader, for text: ArraySlice<UInt8>) {
        headerChecks.add(1, ordering: .relaxed)
        headers.withLock { Self.insert(known, for: HeaderText(bytes: text), into: &$0, capacity: capacity) }
    }

    /// Eviction is rare (leaf rotation); dropping everything keeps the code obvious.
    private static func insert<K, V>(_ value: V, for key: K, into entries: inout [K: V], capacity: Int) {
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = value
    }

    var count: Int { chains.withLock { $0.count } }
    var headerCount: Int { headers.withLock { $0.count } }
    /// Headers decoded and checked in full, and chains verified in full, since the start.
    var fullChecks: (headers: Int, chains: Int) {
        (headerChecks.load(ordering: .relaxed), chainVerifications.load(ordering: .relaxed))
    }
}
