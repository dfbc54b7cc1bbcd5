import Synchronization

/// Where a cached chain's leaf key earns its ``ES256KeyTable``: built once the key has verified
/// `threshold` signatures, then used for every later one.
///
/// The table costs ~20 ms and saves ~30 µs per signature, so it pays for itself after some
/// 700 tokens: a leaf Apple signs with for months gets it early, a leaf seen a few times (tests,
/// a one-off sandbox token) never pays for it. Exactly one caller builds it (the one whose use
/// reaches the threshold) outside the lock; the others keep verifying through EVP meanwhile.
final class ES256KeyTableSlot: Sendable {
    private struct State {
        var uses = 0
        var table: ES256KeyTable?
    }

    private let threshold: Int
    private let state = Mutex(State())

    /// - Parameter threshold: the use that builds the table (1 builds it at the first use;
    ///   `Int.max` never does).
    init(threshold: Int) { self.threshold = threshold }

    /// The table for `publicKey` (the chain's leaf EVP_PKEY) if built, building it on the
    /// threshold use; nil means "verify through EVP".
    func table(for publicKey: OpaquePointer) -> ES256KeyTable? {
        let (table, build) = state.withLock { state -> (ES256KeyTable?, Bool) in
            if let table = state.table { return (table, false) }
            guard state.uses < threshold else { return (nil, false) }
            state.uses += 1
            return (nil, state.uses == threshold)
        }
        if let table { return table }
        guard build, let built = ES256KeyTable(publicKey: publicKey) else { return nil }
        state.withLock { $0.table = built }
        return built
    }

    /// Whether the table has been built (for tests).
    var isBuilt: Bool { state.withLock { $0.table != nil } }
}
