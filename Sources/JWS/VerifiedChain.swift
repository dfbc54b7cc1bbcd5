import Foundation
internal import COpenSSL

/// A leaf -> intermediate -> trusted root chain that passed every time-independent check.
///
/// Everything X509_verify_cert, the role OIDs and the key type establish is a property of the
/// three certificates' bytes alone; only validity depends on the verification time. That is
/// what makes a verified chain safe to cache: ``checkValidity(at:)`` is re-run per token.
struct VerifiedChain: Sendable {
    let leaf: Certificate
    let intermediate: Certificate
    let anchor: TrustAnchor

    /// Marks a certificate authority that issues App Store signing certificates.
    static let intermediateExtensionOID = "1.2.840.113635.100.6.2.1"
    /// Marks a certificate that signs App Store receipts and transactions. Without this check
    /// any leaf the intermediate issued (to any developer, for any purpose) could sign tokens.
    static let leafExtensionOID = "1.2.840.113635.100.6.11.1"

    /// Verifies the chain at `unixMs`, cheapest and most specific checks first.
    init(leafDER: [UInt8], intermediateDER: [UInt8], anchor: TrustAnchor, at unixMs: Int64) throws(JWSError) {
        leaf = try Certificate(der: leafDER, position: .leaf)
        intermediate = try Certificate(der: intermediateDER, position: .intermediate)
        self.anchor = anchor
        try checkValidity(at: unixMs)
        try verifyWithOpenSSL(at: unixMs)
        guard intermediate.hasExtension(oid: Self.intermediateExtensionOID) else {
            throw JWSError(
                .missingCertificateExtension,
                "the intermediate certificate (\(intermediate.subject)) lacks extension OID "
                    + "\(Self.intermediateExtensionOID)",
                certificate: .intermediate)
        }
        guard leaf.hasExtension(oid: Self.leafExtensionOID) else {
            throw JWSError(
                .missingCertificateExtension,
                "the leaf certificate (\(leaf.subject)) lacks extension OID \(Self.leafExtensionOID)",
                certificate: .leaf)
        }
        try ES256.checkKey(of: leaf)
    }

    /// Throws unless all three certificates are valid at `unixMs`; run for every token.
    func checkValidity(at unixMs: Int64) throws(JWSError) {
        let certificates: [(Certificate, JWSError.CertificatePosition)] =
            [(leaf, .leaf), (intermediate, .intermediate), (anchor.certificate, .root)]
        for (certificate, position) in certificates {
            let window = certificate.validity
            switch window.verdict(at: unixMs) {
            case .valid:
                continue
            case .expired:
                throw JWSError(
                    .certificateExpired,
                    "the \(position) certificate (\(certificate.subject)) expired at "
                        + "\(Self.format(window.notAfterMs)), before the verification time \(Self.format(unixMs))",
                    certificate: position)
            case .notYetValid:
                throw JWSError(
                    .certificateNotYetValid,
                    "the \(position) certificate (\(certificate.subject)) is valid only from "
                        + "\(Self.format(window.notBeforeMs)), after the verification time \(Self.format(unixMs))",
                    certificate: position)
            }
        }
    }

    /// Runs X509_verify_cert with only this anchor trusted and the intermediate untrusted.
    ///
    /// X509_V_FLAG_X509_STRICT adds RFC 5280 checks (key identifiers, CA basic constraints
    /// critical, no explicit EC parameters); Apple's chain passes them. Apple's role OIDs are
    /// non-critical, so the unknown-critical-extension rejection stays on: we do not set
    /// X509_V_FLAG_IGNORE_CRITICAL, which would ignore every critical extension OpenSSL does
    /// not understand, not just Apple's.
    private func verifyWithOpenSSL(at unixMs: Int64) throws(JWSError) {
        guard let context = X509_STORE_CTX_new(), let untrusted = copenssl_sk_X509_new_null() else {
            throw JWSError(.cryptoFailure, "cannot allocate a verification context: \(OpenSSLErrorQueue.drain())")
        }
        defer {
            X509_STORE_CTX_free(context)
            copenssl_sk_X509_free(untrusted)
        }
        guard copenssl_sk_X509_push(untrusted, intermediate.x509) > 0,
              X509_STORE_CTX_init(context, anchor.store, leaf.x509, untrusted) == 1 else {
            throw JWSError(.cryptoFailure, "cannot set up chain verification: \(OpenSSLErrorQueue.drain())")
        }
        X509_STORE_CTX_set_flags(context, UInt(X509_V_FLAG_X509_STRICT))
        X509_STORE_CTX_set_time(context, 0, time_t(ValidityWindow.seconds(fromMs: unixMs)))
        guard X509_verify_cert(context) == 1 else {
            let error = X509_STORE_CTX_get_error(context)
            let depth = Int(X509_STORE_CTX_get_error_depth(context))
            _ = OpenSSLErrorQueue.drain()
            let reason = String(cString: X509_verify_cert_error_string(Int(error)))
            let position = JWSError.CertificatePosition(rawValue: depth)
            let which = position.map { "the \($0) certificate" } ?? "certificate at depth \(depth)"
            switch error {
            case X509_V_ERR_CERT_HAS_EXPIRED:
                throw JWSError(
                    .certificateExpired, "\(which) is expired at \(Self.format(unixMs))", certificate: position)
            case X509_V_ERR_CERT_NOT_YET_VALID:
                throw JWSError(
                    .certificateNotYetValid, "\(which) is not yet valid at \(Self.format(unixMs))",
                    certificate: position)
            default:
                throw JWSError(
                    .badCertificateChain, "chain verification failed at \(which): \(reason)", certificate: position)
            }
        }
        // OpenSSL builds the shortest chain it can; insist on exactly the shape x5c claimed, so
        // a leaf issued straight by the root cannot pass with an unrelated intermediate beside it.
        guard let chain = X509_STORE_CTX_get0_chain(context), copenssl_sk_X509_num(chain) == 3,
              X509_cmp(copenssl_sk_X509_value(chain, 1), intermediate.x509) == 0,
              X509_cmp(copenssl_sk_X509_value(chain, 2), anchor.certificate.x509) == 0 else {
            throw JWSError(.badCertificateChain, "the verified chain is not leaf -> x5c intermediate -> trusted root")
        }
    }

    private static func format(_ unixMs: Int64) -> String {
        Date(timeIntervalSince1970: Double(unixMs) / 1000)
            .formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
