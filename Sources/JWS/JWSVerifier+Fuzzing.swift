extension JWSVerifier {
    /// A libFuzzer entry point: parses and verifies arbitrary bytes as a compact JWS.
    ///
    /// Tokens arrive from the network, so every input must end in a value or a ``JWSError``,
    /// never a trap or a leak. Runs both the unverified payload read and the full verification
    /// (against the built-in root at a fixed time, with the cache, as the service runs it).
    public static func fuzzParse(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? unverifiedPayload(text)
        _ = try? fuzzVerifier.verify(text, at: 1_700_000_000_000)
    }

    private static let fuzzVerifier = JWSVerifier(trustedRoots: .appleRootCAG3)
}
