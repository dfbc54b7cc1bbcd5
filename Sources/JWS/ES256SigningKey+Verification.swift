extension ES256SigningKey {
    /// Splits a compact JWS, checks its ES256 signature with this key's public half, and returns
    /// the decoded header and payload; throws `.malformed` or `.badSignature` saying which.
    ///
    /// For whoever plays Apple's side of the Server API (the simulator): Apple keeps the public
    /// half of each In-App Purchase key and checks every request's JWT with it. Only the
    /// signature is checked here; what the header and claims must say is the caller's rule.
    public func verifyCompact(_ compact: String) throws(JWSError) -> (header: [UInt8], payload: [UInt8]) {
        let parts = try CompactJWS(compact)
        try ES256.verify(rawSignature: try parts.signature(), over: parts.signingInput, key: key.pkey)
        return (parts.header, parts.payload)
    }

    /// Checks a DER ECDSA-Sig-Value over `message` with this key's public half; throws
    /// `.badSignature` when it does not verify. What a client of ``signDER(_:)`` does.
    public func verifyDER(_ signature: [UInt8], over message: [UInt8]) throws(JWSError) {
        try ES256.verify(derSignature: signature, over: message[...], key: key.pkey)
    }
}
