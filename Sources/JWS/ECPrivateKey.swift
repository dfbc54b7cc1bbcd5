internal import COpenSSL

/// An EC private key generated in memory; it never leaves the process.
///
/// Immutable after init, so one key signs from many threads: each signature makes its own
/// EVP_MD_CTX, and OpenSSL 3 allows concurrent read-only use of an EVP_PKEY.
final class ECPrivateKey: @unchecked Sendable {
    let pkey: OpaquePointer

    /// A fresh key on `curve` ("P-256" for ES256 leaves, "P-384" like Apple's root).
    init(curve: String) throws(JWSError) {
        guard let pkey = copenssl_EVP_EC_gen(curve) else {
            throw JWSError(.cryptoFailure, "EC key generation on \(curve) failed: \(OpenSSLErrorQueue.drain())")
        }
        self.pkey = pkey
    }

    /// Takes ownership of a key OpenSSL already made (read from a `.p8`); freed on deinit.
    init(adopting pkey: OpaquePointer) { self.pkey = pkey }

    deinit { EVP_PKEY_free(pkey) }

    /// Signs `message` with SHA-256 and returns the raw r||s pair JWS wants (RFC 7518 3.4).
    ///
    /// OpenSSL produces a DER ECDSA-Sig-Value; r and s are left-padded to 32 bytes each,
    /// since either may be shorter when its leading bytes are zero.
    func signES256(_ message: [UInt8]) throws(JWSError) -> [UInt8] {
        let der = try signDER(message)
        let length = der.count
        let raw: [UInt8]? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, length) else { return nil }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            var out = [UInt8](repeating: 0, count: ES256.signatureLength)
            let written = out.withUnsafeMutableBufferPointer { out in
                (BN_bn2binpad(r, out.baseAddress, 32), BN_bn2binpad(s, out.baseAddress! + 32, 32))
            }
            return written == (32, 32) ? out : nil
        }
        guard let raw else {
            throw JWSError(
                .cryptoFailure, "cannot convert the DER ECDSA signature to r||s: \(OpenSSLErrorQueue.drain())")
        }
        return raw
    }

    /// Signs `message` with SHA-256 and returns OpenSSL's DER ECDSA-Sig-Value as it is.
    func signDER(_ message: [UInt8]) throws(JWSError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else {
            throw JWSError(.cryptoFailure, "EVP_MD_CTX_new failed: \(OpenSSLErrorQueue.drain())")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pkey) == 1 else {
            throw JWSError(.cryptoFailure, "EVP_DigestSignInit failed: \(OpenSSLErrorQueue.drain())")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw JWSError(.cryptoFailure, "EVP_DigestSign (size) failed: \(OpenSSLErrorQueue.drain())")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else {
            throw JWSError(.cryptoFailure, "EVP_DigestSign failed: \(OpenSSLErrorQueue.drain())")
        }
        return Array(der.prefix(length))
    }
}
