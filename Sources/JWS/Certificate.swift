import Foundation
internal import COpenSSL

/// One parsed X.509 certificate: the OpenSSL object, its DER and its validity window.
///
/// Immutable after init, so it is shared across threads (cached chains, trust anchors):
/// OpenSSL 3 allows concurrent read-only use of an X509 and of the EVP_PKEY it owns, and
/// guards the caches it fills lazily inside them with their own locks.
final class Certificate: @unchecked Sendable {
    let x509: OpaquePointer
    let der: [UInt8]
    let validity: ValidityWindow

    /// Parses exactly one DER certificate; trailing bytes are rejected, not ignored.
    init(der: [UInt8], position: JWSError.CertificatePosition?) throws(JWSError) {
        let parsed = decodeWholeDER(der, d2i_X509, free: X509_free)
        let label = position.map { "the \($0) certificate" } ?? "a certificate"
        guard let parsed else {
            let reason = OpenSSLErrorQueue.drain()
            throw JWSError(
                .malformedCertificate, "\(label) is not one DER X.509 certificate (\(reason))", certificate: position)
        }
        guard let notBefore = Self.unixMs(X509_get0_notBefore(parsed)),
              let notAfter = Self.unixMs(X509_get0_notAfter(parsed)) else {
            X509_free(parsed)
            throw JWSError(.malformedCertificate, "\(label) has an unreadable validity period", certificate: position)
        }
        x509 = parsed
        self.der = der
        validity = ValidityWindow(notBeforeMs: notBefore, notAfterMs: notAfter)
    }

    deinit { X509_free(x509) }

    /// Whether the certificate carries an extension with this dotted OID, critical or not.
    func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else { return false }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(x509, object, -1) >= 0
    }

    /// The subject public key, owned by this certificate (valid as long as `self`).
    var publicKey: OpaquePointer? { X509_get0_pubkey(x509) }

    /// The subject as one escaped line in certificate order (CN first for Apple's), for messages.
    ///
    /// RFC 2253 escaping keeps control characters from attacker-supplied names out of logs.
    var subject: String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "?" }
        defer { BIO_free(bio) }
        let flags = copenssl_XN_FLAG_RFC2253() & ~UInt(XN_FLAG_DN_REV)
        guard X509_NAME_print_ex(bio, X509_get_subject_name(x509), 0, flags) >= 0 else {
            _ = OpenSSLErrorQueue.drain()
            return "?"
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = copenssl_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    /// An ASN1_TIME as Unix milliseconds (whole seconds: X.509 times have no fractions).
    private static func unixMs(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time else { return nil }
        var calendar = tm()
        guard ASN1_TIME_to_tm(time, &calendar) == 1 else { return nil }
        return Int64(timegm(&calendar)) * 1000
    }
}
