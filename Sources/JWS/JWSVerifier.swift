/// Verifies compact JWS tokens signed with ES256 by the leaf of a three-certificate `x5c` chain.
///
/// The rules are those of Apple's SignedDataVerifier: `alg` is ES256; `x5c` is exactly leaf,
/// intermediate, root; the root is byte-equal to a configured ``TrustedRoots`` certificate
/// and the chain is verified against that configured copy; the intermediate and leaf carry
/// their role OIDs; every certificate is valid at the caller's time; the signature verifies
/// with the leaf key. No revocation (OCSP) checks.
///
/// The verification time is a parameter because signing certificates expire while the tokens
/// they signed stay meaningful: callers verify at the payload's own signing date, read first
/// with ``unverifiedPayload(_:)``. Forging that date still requires the leaf's private key.
///
/// A value type holding immutable OpenSSL objects and a locked cache, safe to share across any
/// number of tasks: each call makes its own X509_STORE_CTX and EVP_MD_CTX.
public struct JWSVerifier: Sendable {
    public let trustedRoots: TrustedRoots
    private let cache: VerifiedChainCache?

    /// - Parameter chainCacheCapacity: how many verified chains to remember (0 disables the
    ///   cache; a handful is plenty, Apple uses few leaves at a time).
    public init(trustedRoots: TrustedRoots = .appleRootCAG3, chainCacheCapacity: Int = 16) {
        self.trustedRoots = trustedRoots
        cache = chainCacheCapacity > 0 ? VerifiedChainCache(capacity: chainCacheCapacity) : nil
    }

    /// How many verified chains and header texts the cache holds (both 0 without a cache); for
    /// tests and diagnostics.
    public var cachedEntries: (chains: Int, headers: Int) {
        (cache?.count ?? 0, cache?.headerCount ?? 0)
    }

    /// How many headers were decoded and checked, and how many x5c chains verified, in full
    /// (nil without a cache, where every token pays both): the count that shows whether a
    /// stream of tokens from one leaf really skips the chain's P-384 signatures after the first.
    public var fullChecks: (headers: Int, chains: Int)? { cache?.fullChecks }

    /// Verifies `compact` as of `unixMs` (Unix time in milliseconds) and returns its payload.
    public func verify(_ compact: String, at unixMs: Int64) throws(JWSError) -> VerifiedJWS {
        let (jws, known) = try split(compact)
        return try verify(jws, known: known, at: unixMs)
    }

    /// Decodes `compact` once and verifies it at the instant its own payload names.
    ///
    /// `read` gets the payload before anything is trusted and returns the decoded value and the
    /// instant to check the certificates at (Apple's signedDate). The value is handed back only
    /// if the signature over those very bytes verifies at that instant, so it is then exactly as
    /// trustworthy as the bytes: callers neither decode the payload twice nor act on it early.
    /// Throws ``JWSError`` for the token, or whatever `read` throws for the payload.
    public func verify<Value>(_ compact: String,
                              reading read: ([UInt8]) throws -> (value: Value, atUnixMs: Int64)) throws -> Value {
        let (jws, known) = try split(compact)
        let (value, time) = try read(jws.payload)
        _ = try verify(jws, known: known, at: time)
        return value
    }

    /// Splits `compact`, looking its header text up among those already verified.
    private func split(_ compact: String) throws(JWSError) -> (CompactJWS, VerifiedChainCache.KnownHeader?) {
        var known: VerifiedChainCache.KnownHeader?
        let jws = try CompactJWS(compact) { text in
            known = cache?.header(for: text)
            return known?.header
        }
        return (jws, known)
    }

    private func verify(
        _ jws: CompactJWS, known: VerifiedChainCache.KnownHeader?, at unixMs: Int64
    ) throws(JWSError) -> VerifiedJWS {
        if let known {
            // The header's checks and its chain's signatures and OIDs passed for these very
            // bytes; what depends on the token is left, in the order of the full path below.
            let signature = try jws.signature()
            try known.chain.checkValidity(at: unixMs)
            try known.prefix.verify(rawSignature: signature, rest: jws.payloadText)
            return VerifiedJWS(algorithm: JOSEHeader.requiredAlgorithm, header: known.header, payload: jws.payload,
                               signingCertificate: known.chain.leaf.der)
        }
        let header = try JOSEHeader(json: jws.header)
        let signature = try jws.signature()
        let certificates = header.certificates
        guard let anchor = trustedRoots.anchor(matching: certificates[2]) else {
            let subject = (try? Certificate(der: certificates[2], position: .root).subject) ?? "unparsable"
            throw JWSError(
                .untrustedRoot, "the x5c root (\(subject)) is not one of the \(trustedRoots.count) trusted root(s)",
                certificate: .root)
        }
        let chain = try verifiedChain(leaf: certificates[0], intermediate: certificates[1], anchor: anchor, at: unixMs)
        // A header whose signing prefix cannot be hashed (OpenSSL out of memory) is just not
        // remembered: its tokens then all take this path.
        if let cache, let key = chain.leaf.publicKey,
           let prefix = try? ES256SigningPrefix(prefix: jws.signedHeaderPrefix, key: key) {
            cache.insert(VerifiedChainCache.KnownHeader(header: jws.header, chain: chain, prefix: prefix),
                         for: jws.headerText)
        }
        try ES256.verify(signature: signature, over: jws.signingInput, by: chain.leaf)
        return VerifiedJWS(algorithm: header.algorithm, header: jws.header, payload: jws.payload,
                           signingCertificate: chain.leaf.der)
    }

    /// The payload of `compact`, base64url-decoded WITHOUT any verification.
    ///
    /// Only for reading the signing date to pass to ``verify(_:at:)``; nothing in it may be
    /// acted on until that succeeds. Rejects tokens that are not well-formed compact JWS.
    public static func unverifiedPayload(_ compact: String) throws(JWSError) -> [UInt8] {
        let jws = try CompactJWS(compact)
        _ = try jws.signature()
        return jws.payload
    }

    /// The cached chain when the same certificates verified before, else a full verification.
    private func verifiedChain(
        leaf: [UInt8], intermediate: [UInt8], anchor: TrustAnchor, at unixMs: Int64
    ) throws(JWSError) -> VerifiedChain {
        guard let cache else {
            return try VerifiedChain(leafDER: leaf, intermediateDER: intermediate, anchor: anchor, at: unixMs)
        }
        let key = VerifiedChainCache.Key(anchor: ObjectIdentifier(anchor), intermediate: intermediate, leaf: leaf)
        if let chain = cache.chain(for: key) {
            // Signatures and extensions are properties of the bytes; validity is not.
            try chain.checkValidity(at: unixMs)
            return chain
        }
        let chain = try VerifiedChain(leafDER: leaf, intermediateDER: intermediate, anchor: anchor, at: unixMs)
        cache.insert(chain, for: key)
        return chain
    }
}
