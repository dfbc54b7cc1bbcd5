internal import COpenSSL

extension ECPrivateKey {
    /// Adopts an EVP_PKEY read from PEM PKCS#8, keeping it only when it is an EC key on P-256.
    ///
    /// Apple's In-App Purchase keys (`.p8`) are exactly that; anything else (RSA, P-384, a
    /// certificate, garbage) is refused with a message an operator can act on, never with the
    /// key bytes in it.
    convenience init(pkcs8PEM pem: [UInt8]) throws(JWSError) {
        let pkey: OpaquePointer? = pem.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let pkey else {
            _ = OpenSSLErrorQueue.drain()
            throw JWSError(.unsupportedKey, "not a PEM private key (expected the App Store Connect .p8 file, "
                           + "\"-----BEGIN PRIVATE KEY-----\")")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        let isEC = EVP_PKEY_get_base_id(pkey) == EVP_PKEY_EC
        let named = isEC && EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard named, curve == "prime256v1" else {
            EVP_PKEY_free(pkey)
            _ = OpenSSLErrorQueue.drain()
            let found = isEC ? "an EC key on \(curve.isEmpty ? "an unnamed curve" : curve)" : "not an EC key"
            throw JWSError(.unsupportedKey, "the private key is \(found); an In-App Purchase key is EC P-256")
        }
        self.init(adopting: pkey)
    }

    /// The key as PEM PKCS#8 ("-----BEGIN PRIVATE KEY-----"), the `.p8` format App Store
    /// Connect hands out.
    func pkcs8PEM() throws(JWSError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw JWSError(.cryptoFailure, "BIO_new failed: \(OpenSSLErrorQueue.drain())")
        }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1 else {
            throw JWSError(.cryptoFailure, "PEM_write_bio_PrivateKey failed: \(OpenSSLErrorQueue.drain())")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = copenssl_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { throw JWSError(.cryptoFailure, "empty PEM output") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }
}
