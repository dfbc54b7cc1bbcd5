internal import COpenSSL

extension ES256SigningKey {
    /// Splits a compact JWS, checks its ES256 signature with this key's public half, and returns
    /// the decoded header and payload; throws `.malformed` or `.badSignature` saying which.
    ///
    /// For whoever plays Apple's side of the Server API (the simulator): Apple keeps the public
    /// half of each In-App Purchase key and checks every request's JWT with it. Only the
    /// signature is checked here; what the header and claims must say is the caller's rule.
    public func verifyCompact(_ compact: String) throws(JWSError) -> (header: [UInt8], payload: [UInt8]) {
        let parts = try CompactJWS(compact)
        let signature = try parts.signature()
        guard signature.count == ES256.signatureLength else {
            throw JWSError(
                .badSignature, "the signature is \(signature.count) bytes; ES256 needs 64 (raw r||s, not DER)")
        }
        let der = try ES256.derSignature(signature)
        guard let context = EVP_MD_CTX_new() else {
            throw JWSError(.cryptoFailure, "EVP_MD_CTX_new failed: \(OpenSSLErrorQueue.drain())")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pkey) == 1 else {
            throw JWSError(.cryptoFailure, "EVP_DigestVerifyInit failed: \(OpenSSLErrorQueue.drain())")
        }
        let result = der.withUnsafeBufferPointer { sig in
            parts.signingInput.withUnsafeBufferPointer { data in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, data.baseAddress, data.count)
            }
        }
        guard result == 1 else {
            _ = OpenSSLErrorQueue.drain()
            throw JWSError(.badSignature, "the ES256 signature does not verify with this key")
        }
        return (parts.header, parts.payload)
    }
}
