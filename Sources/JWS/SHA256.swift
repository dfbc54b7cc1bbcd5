internal import COpenSSL

/// SHA-256 through OpenSSL, for content identifiers (receipt hashes, notification body hashes):
/// collision resistance matters because a hash decides whether work is skipped as a replay.
///
/// Non-throwing, and a failing EVP_Digest traps with OpenSSL's reason: SHA-256 over bytes in
/// memory fails only when OpenSSL cannot allocate or its default provider is missing, a broken
/// process rather than bad input, and every caller (a hot path among them) would otherwise
/// carry a `try` for an error it can do nothing about. A wrong digest is never returned.
public enum SHA256 {
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // Hashed in place when the bytes are contiguous (a String's UTF-8): copying a 300 KB
        // receipt into an array first cost a memcpy and fresh pages on every submission.
        let inPlace: Int32? = bytes.withContiguousStorageIfAvailable { buffer in
            EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha256(), nil)
        }
        let result = inPlace ?? Array(bytes).withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
        }
        guard result == 1, length == 32 else {
            fatalError("EVP_Digest(SHA-256) failed (length \(length)): \(OpenSSLErrorQueue.drain())")
        }
        return digest
    }

    public static func hexHash(_ bytes: some Collection<UInt8>) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in hash(bytes) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
