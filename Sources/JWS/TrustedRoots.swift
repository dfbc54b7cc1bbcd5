internal import COpenSSL

/// The root certificates a ``JWSVerifier`` accepts at the end of an `x5c` chain.
///
/// A token's `x5c` root is only an untrusted copy: it is accepted when it is byte-equal to one
/// of these, and the chain is then verified against the configured certificate, never against
/// the copy. The default is ``appleRootCAG3``; a PEM file replaces it (for example to pin a
/// re-issued root, or a test PKI).
public struct TrustedRoots: Sendable {
    let anchors: [TrustAnchor]

    /// Parses one or more PEM certificates (`-----BEGIN CERTIFICATE-----` blocks).
    ///
    /// Text around the blocks is ignored, as `openssl` does; a file with no certificate or a
    /// non-self-signed one is an error, so a misconfigured path fails at startup, not per token.
    public init(pem: String) throws(JWSError) {
        let bytes = Array(pem.utf8)
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else {
            throw JWSError(.invalidTrustedRoot, "the trusted root PEM is empty")
        }
        // The BIO holds its own copy of the text. A memory BIO over the array's storage
        // (`BIO_new_mem_buf` inside `withUnsafeBytes`) was read after the closure, when the
        // optimizer had already released the array: the built-in root failed to parse at
        // startup when glibc handed the freed block out again (GLIBC_TUNABLES=
        // glibc.malloc.tcache_count=0).
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw JWSError(.cryptoFailure, "BIO_new failed: \(OpenSSLErrorQueue.drain())")
        }
        defer { BIO_free(bio) }
        guard bytes.withUnsafeBytes({ BIO_write(bio, $0.baseAddress, Int32($0.count)) }) == Int32(bytes.count) else {
            throw JWSError(.cryptoFailure, "BIO_write failed: \(OpenSSLErrorQueue.drain())")
        }
        let ders = try Self.derCertificates(reading: bio)
        guard !ders.isEmpty else {
            throw JWSError(.invalidTrustedRoot, "the trusted root PEM holds no CERTIFICATE block")
        }
        try self.init(derCertificates: ders)
    }

    /// Every CERTIFICATE block `bio` holds, as DER.
    private static func derCertificates(reading bio: OpaquePointer) throws(JWSError) -> [[UInt8]] {
        var ders: [[UInt8]] = []
        while true {
            guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else {
                // PEM_R_NO_START_LINE after the last block is the normal end of input.
                let reason = ERR_GET_REASON(ERR_peek_last_error())
                let detail = OpenSSLErrorQueue.drain()
                guard reason == PEM_R_NO_START_LINE else {
                    throw JWSError(
                        .invalidTrustedRoot, "trusted root PEM block \(ders.count + 1) does not parse: \(detail)")
                }
                return ders
            }
            defer { X509_free(x509) }
            var out: UnsafeMutablePointer<UInt8>?
            let length = i2d_X509(x509, &out)
            guard length > 0, let out else {
                throw JWSError(.cryptoFailure, "i2d_X509 failed: \(OpenSSLErrorQueue.drain())")
            }
            ders.append(Array(UnsafeBufferPointer(start: out, count: Int(length))))
            copenssl_free(out)
        }
    }

    /// Uses these DER certificates as the trusted roots.
    public init(derCertificates: [[UInt8]]) throws(JWSError) {
        guard !derCertificates.isEmpty else {
            throw JWSError(.invalidTrustedRoot, "no trusted root certificate given")
        }
        var anchors: [TrustAnchor] = []
        for der in derCertificates {
            anchors.append(try TrustAnchor(der: der))
        }
        self.anchors = anchors
    }

    /// How many roots are trusted.
    public var count: Int { anchors.count }

    /// One line per root, "subject (SHA-256 fingerprint)", for the startup log.
    public var summaries: [String] {
        anchors.map { "\($0.certificate.subject) (SHA-256 \($0.fingerprint))" }
    }

    /// The index of the configured root byte-equal to `der`, if any.
    func anchor(matching der: [UInt8]) -> TrustAnchor? {
        anchors.first { $0.certificate.der == der }
    }
}
