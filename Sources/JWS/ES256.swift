internal import COpenSSL

/// ECDSA P-256 with SHA-256 as JWS uses it (RFC 7518 section 3.4).
///
/// JWS carries the signature as the raw 32-byte big-endian r and s concatenated; OpenSSL's
/// EVP verify wants the DER ECDSA-Sig-Value, so the pair is re-encoded. Uses the EVP API, which
/// takes the shared, immutable EVP_PKEY without touching it, so one key serves many threads.
enum ES256 {
    static let signatureLength = 64

    /// Throws unless the certificate's key is an EC key on P-256 (prime256v1).
    static func checkKey(of certificate: Certificate) throws(JWSError) {
        guard let key = certificate.publicKey, EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else {
            throw JWSError(
                .unsupportedKey, "the leaf certificate's key is not an EC key; ES256 needs P-256", certificate: .leaf)
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else {
            _ = OpenSSLErrorQueue.drain()
            throw JWSError(
                .unsupportedKey, "the leaf certificate's EC key has no named curve; ES256 needs P-256",
                certificate: .leaf)
        }
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" else {
            throw JWSError(
                .unsupportedKey, "the leaf certificate's key is on curve \(curve); ES256 needs P-256 (prime256v1)",
                certificate: .leaf)
        }
    }

    /// Verifies a raw r||s signature over `message` with the certificate's (checked) key, through
    /// the key's ``ES256KeyTable`` when `slot` has one, else through EVP.
    static func verify(
        signature: [UInt8], over message: ArraySlice<UInt8>, by certificate: Certificate,
        slot: ES256KeyTableSlot? = nil, prefix: SHA256Prefix? = nil
    ) throws(JWSError) {
        guard signature.count == signatureLength else {
            throw JWSError(
                .badSignature, "the signature is \(signature.count) bytes; ES256 needs 64 (raw r||s, not DER)")
        }
        guard let key = certificate.publicKey else {
            throw JWSError(.unsupportedKey, "the leaf certificate has no usable public key", certificate: .leaf)
        }
        if let table = slot?.table(for: key) {
            guard verify(signature: signature, over: message, with: table, prefix: prefix) else { throw badSignature }
            return
        }
        let der = try derSignature(signature)
        guard let context = EVP_MD_CTX_new() else {
            throw JWSError(.cryptoFailure, "EVP_MD_CTX_new failed: \(OpenSSLErrorQueue.drain())")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw JWSError(.cryptoFailure, "EVP_DigestVerifyInit failed: \(OpenSSLErrorQueue.drain())")
        }
        let result = der.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { data in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, data.baseAddress, data.count)
            }
        }
        guard result == 1 else {
            _ = OpenSSLErrorQueue.drain()
            throw badSignature
        }
    }

    private static var badSignature: JWSError {
        JWSError(.badSignature,
                 "the ES256 signature does not verify over header.payload with the leaf certificate's key")
    }

    /// SHA-256 of `message` into a stack buffer (continuing from `prefix` when the message
    /// starts with it), then the table's ECDSA check.
    static func verify(
        signature: [UInt8], over message: ArraySlice<UInt8>, with table: ES256KeyTable, prefix: SHA256Prefix? = nil
    ) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
            var length: UInt32 = 32
            let hashed = prefix?.digest(of: message, into: digest) == true || message.withUnsafeBytes { data in
                EVP_Digest(data.baseAddress, data.count, digest.baseAddress, &length, EVP_sha256(), nil) == 1
            }
            guard hashed, length == 32 else {
                _ = OpenSSLErrorQueue.drain()
                return false
            }
            return signature.withUnsafeBytes { raw in
                table.verify(digest: UnsafeRawBufferPointer(digest), signature: raw)
            }
        }
    }

    /// Re-encodes raw r||s as a DER ECDSA-Sig-Value.
    static func derSignature(_ raw: [UInt8]) throws(JWSError) -> [UInt8] {
        let encoded: [UInt8]? = raw.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress, let sig = ECDSA_SIG_new() else { return nil }
            defer { ECDSA_SIG_free(sig) }
            guard let r = BN_bin2bn(base, 32, nil) else { return nil }
            guard let s = BN_bin2bn(base + 32, 32, nil) else {
                BN_free(r)
                return nil
            }
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
