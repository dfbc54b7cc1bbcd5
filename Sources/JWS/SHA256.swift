internal import COpenSSL

/// SHA-256 through OpenSSL, for content identifiers (receipt hashes, notification body hashes):
/// collision resistance matters because a hash decides whether work is skipped as a replay.
public enum SHA256 {
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // Hashed in place when the bytes are contiguous (a String's UTF-8): copying a 300 KB
        // receipt into an array first cost a memcpy and fresh pages on every submission.
        let inPlace: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            _ = EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha256(), nil)
        }
        if inPlace == nil {
            Array(bytes).withUnsafeBytes { raw in
                _ = EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
            }
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
