internal import COpenSSL
import Synchronization

/// A remembered header's share of ES256 verification: an EVP verification context for the
/// leaf's key that has already hashed the header text and its dot, the first part of every
/// signing input (`header.payload`) that header starts.
///
/// A known header's tokens then hash only their payload part, on a copy of this context
/// (EVP_MD_CTX_copy_ex), and skip EVP_DigestVerifyInit's algorithm fetches; ~10 us of a token's
/// ~60 us on a notification's three tokens. It remembers work, never a verdict: the copy's
/// digest still covers every byte of the token's signing input (the cache matched the header
/// text byte for byte before this is used) and EVP_DigestVerifyFinal checks the token's own
/// signature, exactly as ``ES256/verify(derSignature:over:key:)`` does.
///
/// `@unchecked Sendable`: the context is written only by `init` and read only under `lock`.
final class ES256SigningPrefix: @unchecked Sendable {
    /// The hashed EVP_MD_CTX.
    private let context: OpaquePointer
    /// Held while copying `context`: OpenSSL does not promise that one context may be copied
    /// from several threads at once, and a copy takes about a microsecond.
    private let lock = Mutex(())

    /// Hashes `prefix` (a header's text and the dot after it) into a context verifying with
    /// `key`, an EC P-256 EVP_PKEY (the context keeps its own reference to it).
    init(prefix: ArraySlice<UInt8>, key: OpaquePointer) throws(JWSError) {
        let context = try ES256.verificationContext(key: key)
        do {
            try ES256.update(context, with: prefix)
        } catch {
            EVP_MD_CTX_free(context)
            throw error
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Verifies a JWS signature (raw r||s) over the prefix followed by `rest` (the payload text).
    func verify(rawSignature: [UInt8], rest: ArraySlice<UInt8>) throws(JWSError) {
        let signature = try ES256.derSignature(rawSignature)
        guard let copy = EVP_MD_CTX_new() else {
            throw JWSError(.cryptoFailure, "EVP_MD_CTX_new failed: \(OpenSSLErrorQueue.drain())")
        }
        defer { EVP_MD_CTX_free(copy) }
        guard lock.withLock({ _ in EVP_MD_CTX_copy_ex(copy, context) }) == 1 else {
            throw JWSError(.cryptoFailure, "EVP_MD_CTX_copy_ex failed: \(OpenSSLErrorQueue.drain())")
        }
        try ES256.finish(copy, over: rest, derSignature: signature)
    }
}
