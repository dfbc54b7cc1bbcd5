internal import COpenSSL

extension SigningAuthority {
    /// `content` wrapped as PKCS#7 SignedData (DER), signed by the leaf, with the leaf and
    /// intermediate certificates included: the container an App Store app receipt comes in.
    ///
    /// For the simulator's receipts, so a client reads them exactly as it reads Apple's (the
    /// content is the receipt's attribute SET). Apple signs receipts with RSA; an EC leaf makes
    /// an equally valid SignedData, and nothing that reads the ids locally checks the signer.
    public func signPKCS7(_ content: [UInt8]) throws(JWSError) -> [UInt8] {
        guard let leaf = decodeWholeDER(leafDER, d2i_X509, free: X509_free) else {
            throw JWSError(.cryptoFailure, "cannot read the authority's leaf certificate: \(OpenSSLErrorQueue.drain())")
        }
        defer { X509_free(leaf) }
        guard let intermediate = decodeWholeDER(intermediateDER, d2i_X509, free: X509_free) else {
            throw JWSError(.cryptoFailure,
                           "cannot read the authority's intermediate certificate: \(OpenSSLErrorQueue.drain())")
        }
        defer { X509_free(intermediate) }
        guard let extra = copenssl_sk_X509_new_null() else {
            throw JWSError(.cryptoFailure, "sk_X509_new_null failed: \(OpenSSLErrorQueue.drain())")
        }
        defer { copenssl_sk_X509_free(extra) }
        guard copenssl_sk_X509_push(extra, intermediate) > 0 else {
            throw JWSError(.cryptoFailure, "sk_X509_push failed: \(OpenSSLErrorQueue.drain())")
        }
        let signed: UnsafeMutablePointer<PKCS7>? = content.withUnsafeBytes { bytes in
            guard let data = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(data) }
            return PKCS7_sign(leaf, signer.key.pkey, extra, data, PKCS7_BINARY)
        }
        guard let signed else {
            throw JWSError(.cryptoFailure, "PKCS7_sign failed: \(OpenSSLErrorQueue.drain())")
        }
        defer { PKCS7_free(signed) }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PKCS7(signed, &out)
        guard length > 0, let out else {
            throw JWSError(.cryptoFailure, "i2d_PKCS7 failed: \(OpenSSLErrorQueue.drain())")
        }
        defer { copenssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
