internal import COpenSSL

/// A secret held as its SHA-256 digest, compared in constant time: the one place entitlementd
/// compares a presented secret (bearer token, V1 notification password) with a configured one.
///
/// An early-exit comparison would let an attacker recover a secret byte by byte from response
/// timings, and comparing raw bytes of unequal lengths leaks the length. Fixed-size digests
/// compared with OpenSSL's `CRYPTO_memcmp` (its time depends neither on the contents nor on
/// where they differ) hide both. An empty secret matches nothing, not even another empty one:
/// a blank token line or an empty password must never authenticate.
public struct SecretDigest: Sendable {
    private let digest: [UInt8]
    private let isEmpty: Bool

    public init(_ secret: some Collection<UInt8>) {
        digest = SHA256.hash(secret)
        isEmpty = secret.isEmpty
    }

    public init(_ secret: String) {
        self.init(secret.utf8)
    }

    /// True when both secrets are the same non-empty bytes.
    public func matches(_ other: SecretDigest) -> Bool {
        let same = digest.withUnsafeBytes { a in
            other.digest.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
        return same && !isEmpty && !other.isEmpty
    }
}

/// Whether a presented secret equals the configured one, in constant time (see ``SecretDigest``).
/// Empty secrets never match.
public func constantTimeEquals(_ presented: String, _ configured: String) -> Bool {
    SecretDigest(presented).matches(SecretDigest(configured))
}
