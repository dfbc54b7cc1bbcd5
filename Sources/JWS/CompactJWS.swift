/// The three parts of a compact JWS, split and base64url-decoded but not yet trusted.
///
/// Keeps the original ASCII of `header.payload` because that text, not the decoded bytes, is
/// what ES256 signs. The signature part is decoded separately, after the header: a token with
/// `"alg":"none"` usually has an empty signature, and "alg none is not accepted" tells the
/// operator far more than "empty part".
struct CompactJWS {
    /// The ASCII bytes of `header.payload`, the JWS Signing Input.
    let signingInput: ArraySlice<UInt8>
    let header: [UInt8]
    let payload: [UInt8]
    private let signaturePart: ArraySlice<UInt8>

    init(_ compact: String) throws(JWSError) {
        let bytes = Array(compact.utf8)
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else {
            throw JWSError(
                .malformed,
                "compact JWS needs exactly 3 dot-separated parts (header.payload.signature), found \(dots.count + 1)")
        }
        header = try Self.decode(bytes[..<dots[0]], name: "header")
        payload = try Self.decode(bytes[(dots[0] + 1)..<dots[1]], name: "payload")
        signingInput = bytes[..<dots[1]]
        signaturePart = bytes[(dots[1] + 1)...]
    }

    /// The decoded signature part; throws if it is empty or not base64url.
    func signature() throws(JWSError) -> [UInt8] {
        try Self.decode(signaturePart, name: "signature")
    }

    private static func decode(_ part: ArraySlice<UInt8>, name: String) throws(JWSError) -> [UInt8] {
        guard !part.isEmpty else {
            throw JWSError(.malformed, "the JWS \(name) part is empty")
        }
        guard let value = Base64.decodeURL(part) else {
            throw JWSError(.malformed, "the JWS \(name) part is not unpadded base64url (A-Z a-z 0-9 - _, no '=')")
        }
        return value
    }
}
