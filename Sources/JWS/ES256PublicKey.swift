internal import COpenSSL

/// An EC P-256 public key read from a DER SubjectPublicKeyInfo, checked through ``ES256``.
///
/// The service takes its keys from certificates; published test vectors (Wycheproof) give bare
/// keys, and running them through the very ``ES256`` functions a leaf's key goes through is
/// what makes those vectors evidence about the service. Immutable after init, like a
/// certificate's key, so shared across threads.
final class ES256PublicKey: @unchecked Sendable {
    let pkey: OpaquePointer

    /// Parses exactly one SubjectPublicKeyInfo (trailing bytes refused); throws unless P-256.
    init(subjectPublicKeyInfo der: [UInt8]) throws(JWSError) {
        let parsed = decodeWholeDER(der, d2i_PUBKEY, free: EVP_PKEY_free)
        guard let parsed else {
            throw JWSError(.unsupportedKey, "not one DER SubjectPublicKeyInfo: \(OpenSSLErrorQueue.drain())")
        }
        do {
            try ES256.checkKey(parsed, certificate: nil)
        } catch {
            EVP_PKEY_free(parsed)
            throw error
        }
        pkey = parsed
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Verifies a JWS (IEEE P1363, raw r||s) signature, as a token's signature is verified.
    func verify(rawSignature: [UInt8], over message: ArraySlice<UInt8>) throws(JWSError) {
        try ES256.verify(rawSignature: rawSignature, over: message, key: pkey)
    }

    /// Verifies a DER ECDSA-Sig-Value with the same EVP calls.
    func verify(derSignature: [UInt8], over message: ArraySlice<UInt8>) throws(JWSError) {
        try ES256.verify(derSignature: derSignature, over: message, key: pkey)
    }
}
