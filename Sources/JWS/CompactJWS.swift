import Glibc

/// The three parts of a compact JWS, split and base64url-decoded but not yet trusted.
///
/// Keeps the original ASCII of `header.payload` because that text, not the decoded bytes, is
/// what ES256 signs. The signature part is decoded separately, after the header: a token with
/// `"alg":"none"` usually has an empty signature, and "alg none is not accepted" tells the
/// operator far more than "empty part".
struct CompactJWS {
    /// The ASCII bytes of `header.payload`, the JWS Signing Input.
    let signingInput: ArraySlice<UInt8>
    /// The header part as sent (base64url text): what ``VerifiedChainCache`` keys known headers by.
    let headerText: ArraySlice<UInt8>
    let header: [UInt8]
    let payload: [UInt8]
    private let signaturePart: ArraySlice<UInt8>

    /// Splits and decodes `compact`. `knownHeader` may return the decoded bytes of a header text
    /// seen before, which saves decoding it again; a known text decodes without error, so the
    /// token is accepted or refused exactly as without it.
    init(_ compact: String, knownHeader: (ArraySlice<UInt8>) -> [UInt8]? = { _ in nil }) throws(JWSError) {
        let bytes = Array(compact.utf8)
        guard let first = Self.dot(in: bytes, from: 0),
              let second = Self.dot(in: bytes, from: first + 1),
              Self.dot(in: bytes, from: second + 1) == nil else {
            let parts = bytes.lazy.filter { $0 == UInt8(ascii: ".") }.count + 1
            throw JWSError(
                .malformed,
                "compact JWS needs exactly 3 dot-separated parts (header.payload.signature), found \(parts)")
        }
        headerText = bytes[..<first]
        if let known = headerText.isEmpty ? nil : knownHeader(headerText) {
            header = known
        } else {
            header = try Self.decode(headerText, name: "header")
        }
        payload = try Self.decode(bytes[(first + 1)..<second], name: "payload")
        signingInput = bytes[..<second]
        signaturePart = bytes[(second + 1)...]
    }

    /// The header text and the dot after it: what every token of this header's signing input
    /// begins with.
    var signedHeaderPrefix: ArraySlice<UInt8> { signingInput[...headerText.endIndex] }

    /// The payload part as sent (base64url text): what follows ``signedHeaderPrefix``.
    var payloadText: ArraySlice<UInt8> { signingInput[(headerText.endIndex + 1)...] }

    /// The decoded signature part; throws if it is empty or not base64url.
    func signature() throws(JWSError) -> [UInt8] {
        try Self.decode(signaturePart, name: "signature")
    }

    /// The index of the first `.` at or after `start` (memchr: a V2 envelope is ~20 KB).
    private static func dot(in bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBytes { raw in
            guard start < raw.count, let base = raw.baseAddress,
                  let found = memchr(base + start, Int32(UInt8(ascii: ".")), raw.count - start) else { return nil }
            return UnsafeRawPointer(found) - base
        }
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
