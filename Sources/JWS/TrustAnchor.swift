internal import COpenSSL

/// One configured root: its certificate and an X509_STORE holding only it.
///
/// One store per root, rather than one for all, so a chain can only ever be built to the very
/// root the token named in `x5c`: with several configured roots sharing a subject (a re-keyed
/// root), OpenSSL's chain builder could otherwise pick a different one. The store is never
/// modified after init; OpenSSL locks its lookups, so concurrent X509_STORE_CTXs may share it.
final class TrustAnchor: @unchecked Sendable {
    let certificate: Certificate
    let store: OpaquePointer

    init(der: [UInt8]) throws(JWSError) {
        let certificate: Certificate
        do {
            certificate = try Certificate(der: der, position: nil)
        } catch {
            throw JWSError(.invalidTrustedRoot, "a trusted root is not a DER X.509 certificate: \(error.message)")
        }
        // X509_verify_cert only ends a chain at a trusted self-signed certificate (we do not set
        // X509_V_FLAG_PARTIAL_CHAIN), so a non-self-signed anchor would reject every token.
        guard X509_self_signed(certificate.x509, 1) == 1 else {
            _ = OpenSSLErrorQueue.drain()
            throw JWSError(.invalidTrustedRoot, "trusted root \(certificate.subject) is not a self-signed certificate")
        }
        guard let store = X509_STORE_new() else {
            throw JWSError(.cryptoFailure, "X509_STORE_new failed: \(OpenSSLErrorQueue.drain())")
        }
        guard X509_STORE_add_cert(store, certificate.x509) == 1 else {
            X509_STORE_free(store)
            throw JWSError(.cryptoFailure, "X509_STORE_add_cert failed: \(OpenSSLErrorQueue.drain())")
        }
        self.certificate = certificate
        self.store = store
    }

    deinit { X509_STORE_free(store) }

    /// The SHA-256 fingerprint as colon-separated upper-case hex, as `openssl x509 -fingerprint`.
    var fingerprint: String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate.x509, EVP_sha256(), &digest, &length) == 1 else { return "?" }
        let hex = "0123456789ABCDEF".map { $0 }
        return digest.prefix(Int(length)).map { "\(hex[Int($0 >> 4)])\(hex[Int($0 & 15)])" }
            .joined(separator: ":")
    }
}
