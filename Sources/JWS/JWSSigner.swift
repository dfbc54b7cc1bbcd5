/// Signs compact JWS tokens the way Apple signs App Store data: ES256 by a leaf key, with the
/// leaf, intermediate and root certificates in `x5c`.
///
/// Made by a ``SigningAuthority``; what it signs verifies with a ``JWSVerifier`` that trusts
/// that authority's root. A value type over an immutable key: safe to share across tasks.
public struct JWSSigner: Sendable {
    let key: ECPrivateKey
    /// The base64url header, computed once: it is the same for every token.
    let encodedHeader: String

    init(key: ECPrivateKey, chain: [[UInt8]]) {
        self.key = key
        let x5c = chain.map { "\"" + Base64.encodeStandard($0) + "\"" }.joined(separator: ",")
        encodedHeader = Base64.encodeURL(Array("{\"alg\":\"ES256\",\"x5c\":[\(x5c)]}".utf8))
    }

    /// `header.payload.signature` for these payload bytes (normally JSON).
    public func sign(_ payload: [UInt8]) throws(JWSError) -> String {
        let signingInput = encodedHeader + "." + Base64.encodeURL(payload)
        let signature = try key.signES256(Array(signingInput.utf8))
        return signingInput + "." + Base64.encodeURL(signature)
    }
}
