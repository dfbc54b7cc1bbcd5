internal import COpenSSL

/// What one certificate of a generated chain says about itself.
struct CertificateProfile {
    enum Role { case root, intermediate, leaf }

    var commonName: String
    var role: Role
    var serial: Int
    var notBeforeSeconds: Int64
    var notAfterSeconds: Int64
    /// Apple's role OIDs, written as non-critical extensions holding DER NULL, as Apple's are.
    var appleOIDs: [String]
}

/// Issues X.509 v3 certificates that pass the verifier's strict checks.
///
/// X509_V_FLAG_X509_STRICT wants what RFC 5280 wants: critical basicConstraints on CAs, a
/// subject key identifier on CAs and an authority key identifier on everything a CA issued;
/// named curves only. The extensions below are the minimum that satisfies it.
enum CertificateIssuance {
    /// A certificate for `subjectKey`, signed by `issuer` (nil: self-signed with `subjectKey`).
    static func issue(
        _ profile: CertificateProfile, subjectKey: ECPrivateKey,
        issuer: (certificate: OpaquePointer, key: ECPrivateKey)?
    ) throws(JWSError) -> OpaquePointer {
        guard let x509 = X509_new() else { throw failure("X509_new") }
        var succeeded = false
        defer { if !succeeded { X509_free(x509) } }
        guard X509_set_version(x509, 2) == 1,
              ASN1_INTEGER_set(X509_get_serialNumber(x509), profile.serial) == 1,
              ASN1_TIME_set(X509_getm_notBefore(x509), time_t(profile.notBeforeSeconds)) != nil,
              ASN1_TIME_set(X509_getm_notAfter(x509), time_t(profile.notAfterSeconds)) != nil,
              X509_set_pubkey(x509, subjectKey.pkey) == 1
        else { throw failure("setting the certificate fields") }
        try setSubject(of: x509, commonName: profile.commonName)
        let issuerCertificate = issuer?.certificate ?? x509
        guard X509_set_issuer_name(x509, X509_get_subject_name(issuerCertificate)) == 1 else {
            throw failure("X509_set_issuer_name")
        }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuerCertificate, x509, nil, nil, 0)
        for (nid, value) in standardExtensions(profile.role) {
            guard let ext = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                throw failure("extension \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { throw failure("X509_add_ext") }
        }
        for oid in profile.appleOIDs { try addNullExtension(oid, to: x509) }
        let signingKey = issuer?.key ?? subjectKey
        // ecdsa-with-SHA384 for a P-384 issuer, as Apple's root signs; SHA-256 below it.
        let digest = EVP_PKEY_get_bits(signingKey.pkey) > 256 ? EVP_sha384() : EVP_sha256()
        guard X509_sign(x509, signingKey.pkey, digest) > 0 else { throw failure("X509_sign") }
        succeeded = true
        return x509
    }

    static func der(of x509: OpaquePointer) throws(JWSError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &out)
        guard length > 0, let out else { throw failure("i2d_X509") }
        defer { copenssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    static func pem(of x509: OpaquePointer) throws(JWSError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw failure("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, x509) == 1 else { throw failure("PEM_write_bio_X509") }
        var data: UnsafeMutablePointer<CChar>?
        let length = copenssl_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { throw failure("reading the PEM") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }

    private static func standardExtensions(_ role: CertificateProfile.Role) -> [(Int32, String)] {
        switch role {
        case .root:
            return [(NID_basic_constraints, "critical,CA:TRUE"),
                    (NID_key_usage, "critical,keyCertSign,cRLSign"),
                    (NID_subject_key_identifier, "hash")]
        case .intermediate:
            return [(NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                    (NID_key_usage, "critical,keyCertSign,cRLSign"),
                    (NID_subject_key_identifier, "hash"),
                    (NID_authority_key_identifier, "keyid:always")]
        case .leaf:
            return [(NID_basic_constraints, "critical,CA:FALSE"),
                    (NID_key_usage, "critical,digitalSignature"),
                    (NID_authority_key_identifier, "keyid:always")]
        }
    }

    private static func setSubject(of x509: OpaquePointer, commonName: String) throws(JWSError) {
        guard let name = X509_get_subject_name(x509) else { throw failure("X509_get_subject_name") }
        let fields = [("CN", commonName), ("O", "App Store Simulator"), ("C", "US")]
        for (field, value) in fields {
            guard X509_NAME_add_entry_by_txt(name, field, copenssl_MBSTRING_ASC(), value, -1, -1, 0) == 1 else {
                throw failure("subject \(field)")
            }
        }
    }

    /// Adds a non-critical extension `oid` whose value is DER NULL (05 00).
    private static func addNullExtension(_ oid: String, to x509: OpaquePointer) throws(JWSError) {
        guard let object = OBJ_txt2obj(oid, 1) else { throw failure("OBJ_txt2obj \(oid)") }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else { throw failure("ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(value) }
        let null: [UInt8] = [0x05, 0x00]
        guard ASN1_OCTET_STRING_set(value, null, Int32(null.count)) == 1,
              let ext = X509_EXTENSION_create_by_OBJ(nil, object, 0, value)
        else { throw failure("extension \(oid)") }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(x509, ext, -1) == 1 else { throw failure("X509_add_ext \(oid)") }
    }

    private static func failure(_ step: String) -> JWSError {
        JWSError(.cryptoFailure, "certificate issuance failed at \(step): \(OpenSSLErrorQueue.drain())")
    }
}
