internal import COpenSSL

/// ECDSA P-256 with SHA-256 as JWS uses it (RFC 7518 section 3.4), checked by OpenSSL alone.
///
/// JWS carries the signature as IEEE P1363 raw r||s (32 bytes each, big-endian); OpenSSL's EVP
/// verify wants the DER ECDSA-Sig-Value, so OpenSSL's own ECDSA_SIG re-encodes the pair. Hashing,
/// the range checks on r and s and the curve arithmetic are all EVP_DigestVerify*'s: a
/// verification is only as good as its least-reviewed step, and none of the steps is ours
/// (Wycheproof's vectors run through these functions, `WycheproofECDSATests`).
///
/// EVP_DigestVerifyInit only reads the EVP_PKEY, so one key (a cached leaf's) serves every
/// thread; each call makes its own EVP_MD_CTX, or copies a remembered header's
/// (``ES256SigningPrefix``).
enum ES256 {
    static let signatureLength = 64

    /// Throws unless the certificate's key is an EC key on P-256 (prime256v1).
    static func checkKey(of certificate: Certificate) throws(JWSError) {
        guard let key = certificate.publicKey else {
            throw JWSError(.unsupportedKey, "the leaf certificate has no usable public key", certificate: .leaf)
        }
        try checkKey(key, certificate: .leaf)
    }

    /// Throws unless `key` (an EVP_PKEY) is an EC key on P-256 (prime256v1).
    static func checkKey(_ key: OpaquePointer, certificate position: JWSError.CertificatePosition?) throws(JWSError) {
        let owner = position.map { "the \($0) certificate's key" } ?? "the key"
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else {
            throw JWSError(.unsupportedKey, "\(owner) is not an EC key; ES256 needs P-256", certificate: position)
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else {
            _ = OpenSSLErrorQueue.drain()
            throw JWSError(
                .unsupportedKey, "\(owner) is on no named curve; ES256 needs P-256", certificate: position)
        }
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" else {
            throw JWSError(
                .unsupportedKey, "\(owner) is on curve \(curve); ES256 needs P-256 (prime256v1)",
                certificate: position)
        }
    }

    /// Verifies a JWS signature over `message` (the token's `header.payload`) with the certificate's
    /// checked key; the one ES256 check every token the service accepts has passed.
    static func verify(
        signature: [UInt8], over message: ArraySlice<UInt8>, by certificate: Certificate
    ) throws(JWSError) {
        guard let key = certificate.publicKey else {
            throw JWSError(.unsupportedKey, "the leaf certificate has no usable public key", certificate: .leaf)
        }
        try verify(rawSignature: signature, over: message, key: key)
    }

    /// Verifies an IEEE P1363 signature (raw r||s, exactly 64 bytes) with `key` (an EVP_PKEY).
    static func verify(
        rawSignature: [UInt8], over message: ArraySlice<UInt8>, key: OpaquePointer
    ) throws(JWSError) {
        try verify(derSignature: try derSignature(rawSignature), over: message, key: key)
    }

    /// Verifies a DER ECDSA-Sig-Value with `key` (an EVP_PKEY) by EVP_DigestVerifyInit and
    /// EVP_DigestVerifyUpdate/Final, what EVP_DigestVerify does for ECDSA.
    ///
    /// OpenSSL refuses BER and trailing bytes itself (it re-encodes what it parsed and compares).
    static func verify(
        derSignature: [UInt8], over message: ArraySlice<UInt8>, key: OpaquePointer
    ) throws(JWSError) {
        let context = try verificationContext(key: key)
        defer { EVP_MD_CTX_free(context) }
        try finish(context, over: message, derSignature: derSignature)
    }

    /// A new EVP_MD_CTX set up by EVP_DigestVerifyInit to verify with `key` over SHA-256; the
    /// caller frees it.
    static func verificationContext(key: OpaquePointer) throws(JWSError) -> OpaquePointer {
        guard let context = EVP_MD_CTX_new() else {
            throw JWSError(.cryptoFailure, "EVP_MD_CTX_new failed: \(OpenSSLErrorQueue.drain())")
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            EVP_MD_CTX_free(context)
            throw JWSError(.cryptoFailure, "EVP_DigestVerifyInit failed: \(OpenSSLErrorQueue.drain())")
        }
        return context
    }

    /// Feeds `bytes` to a verification context (EVP_DigestVerifyUpdate).
    static func update(_ context: OpaquePointer, with bytes: ArraySlice<UInt8>) throws(JWSError) {
        let fed = bytes.withUnsafeBufferPointer { data in
            // An empty message still needs a pointer; zero bytes are read from it.
            EVP_DigestVerifyUpdate(context, data.baseAddress ?? UnsafePointer(bitPattern: 1), data.count)
        }
        guard fed == 1 else {
            throw JWSError(.cryptoFailure, "EVP_DigestVerifyUpdate failed: \(OpenSSLErrorQueue.drain())")
        }
    }

    /// Feeds `message` to `context` and verifies `derSignature` over everything it was fed
    /// (EVP_DigestVerifyFinal). The context is spent: it is finalised in place
    /// (EVP_MD_CTX_FLAG_FINALISE), where OpenSSL would otherwise copy its state to keep it usable.
    static func finish(
        _ context: OpaquePointer, over message: ArraySlice<UInt8>, derSignature: [UInt8]
    ) throws(JWSError) {
        try update(context, with: message)
        EVP_MD_CTX_set_flags(context, EVP_MD_CTX_FLAG_FINALISE)
        let result = derSignature.withUnsafeBufferPointer { signature in
            EVP_DigestVerifyFinal(context, signature.baseAddress, signature.count)
        }
        switch result {
        case 1:
            return
        case 0:
            _ = OpenSSLErrorQueue.drain()
            throw JWSError(
                .badSignature, "the ES256 signature does not verify over header.payload with the signing key")
        default:
            // Negative: OpenSSL could not read the signature (not one DER ECDSA-Sig-Value).
            throw JWSError(.badSignature, "the ES256 signature does not parse: \(OpenSSLErrorQueue.drain())")
        }
    }

    /// Re-encodes a JWS signature, exactly 64 bytes of raw r||s, as a DER ECDSA-Sig-Value.
    ///
    /// Any other length is refused before OpenSSL sees it: a DER signature or a short r
    /// without its leading zeros is not a JWS signature, whatever it would say re-encoded.
    static func derSignature(_ raw: [UInt8]) throws(JWSError) -> [UInt8] {
        guard raw.count == signatureLength else {
            throw JWSError(.badSignature, "the signature is \(raw.count) bytes; ES256 needs 64 (raw r||s, not DER)")
        }
        let encoded: [UInt8]? = raw.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress, let sig = ECDSA_SIG_new() else { return nil }
            defer { ECDSA_SIG_free(sig) }
            guard let r = BN_bin2bn(base, 32, nil) else { return nil }
            guard let s = BN_bin2bn(base + 32, 32, nil) else {
                BN_free(r)
                return nil
            }
            // On success the signature owns r and s; on failure they are still ours.
            guard ECDSA_SIG_set0(sig, r, s) == 1 else {
                BN_free(r)
                BN_free(s)
                return nil
            }
            var out: UnsafeMutablePointer<UInt8>?
            let length = i2d_ECDSA_SIG(sig, &out)
            guard length > 0, let out else { return nil }
            defer { copenssl_free(out) }
            return Array(UnsafeBufferPointer(start: out, count: Int(length)))
        }
        guard let encoded else {
            throw JWSError(.cryptoFailure, "cannot DER-encode the ECDSA signature: \(OpenSSLErrorQueue.drain())")
        }
        return encoded
    }
}
