/// Holds the purpose-built decoder (``AppleJSONParser``) to `JSONSerialization`'s reading.
///
/// Public for the differential tests and the `json-decoders` fuzz target; the service never
/// calls it.
public enum AppleJSONDifferential {
    /// `nil` when both decoders read `bytes` alike, else what differs.
    ///
    /// Alike means: where the purpose-built decoder accepts a document, `JSONSerialization`
    /// accepts it too and yields an equal ``AppleJSONValue`` (same members, strings, and number
    /// readings). Where it declines, the service uses `JSONSerialization` itself, so there is
    /// nothing to compare.
    public static func difference(_ bytes: [UInt8]) -> String? {
        guard let purposeBuilt = AppleJSONParser.decode(bytes) else { return nil }
        guard let foundation = AppleJSONValue.foundationDecoded(bytes) else {
            return "the purpose-built decoder accepted a document JSONSerialization rejects"
        }
        return purposeBuilt == foundation ? nil : "the decoders read different values"
    }

    /// Whether the purpose-built decoder reads `bytes` itself (rather than declining).
    public static func isReadByPurposeBuiltDecoder(_ bytes: [UInt8]) -> Bool {
        AppleJSONParser.decode(bytes) != nil
    }

    /// Fuzzing entry point: traps when the decoders disagree, so libFuzzer reports the input.
    public static func fuzzCompare(_ bytes: UnsafeRawBufferPointer) {
        if let difference = difference(Array(bytes)) { preconditionFailure(difference) }
    }
}
