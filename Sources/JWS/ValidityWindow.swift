/// A certificate's validity period in Unix milliseconds, checked without OpenSSL.
///
/// Cached chains are re-checked against each token's verification time with this (two integer
/// comparisons) instead of a full X509_verify_cert. Its rule is OpenSSL's own (check_cert_time
/// with a time_t of whole seconds: valid iff notBefore <= t < notAfter), so a cached and an
/// uncached verification of the same token always reach the same verdict.
struct ValidityWindow: Sendable, Equatable {
    let notBeforeMs: Int64
    let notAfterMs: Int64

    enum Verdict { case valid, notYetValid, expired }

    func verdict(at unixMs: Int64) -> Verdict {
        if unixMs < notBeforeMs { return .notYetValid }
        if unixMs >= notAfterMs { return .expired }
        return .valid
    }

    /// Whole seconds for `X509_STORE_CTX_set_time`; flooring keeps both rules equivalent.
    static func seconds(fromMs unixMs: Int64) -> Int64 {
        unixMs >= 0 ? unixMs / 1000 : (unixMs - 999) / 1000
    }
}
