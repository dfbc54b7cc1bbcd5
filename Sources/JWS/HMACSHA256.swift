internal import COpenSSL

/// HMAC-SHA256 through OpenSSL: the webhook signature (`Webhook-Signature: t=...,v1=<hex>`).
///
/// Non-throwing, and a failing HMAC() traps with OpenSSL's reason, as ``SHA256`` does: it fails
/// only when OpenSSL cannot allocate or lacks its default provider, which no caller can handle,
/// and a webhook must never go out with a MAC that was not computed.
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    public static func authenticationCode(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let key = Array(key)
        let message = Array(message)
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                // A zero-length key needs a non-null pointer; the one-byte buffer is never read.
                let keyPointer = keyBytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
                return HMAC(EVP_sha256(), keyPointer, Int32(keyBytes.count),
                            messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                            &code, &length)
            }
        }
        guard result != nil, length == 32 else {
            fatalError("HMAC(SHA-256) failed (length \(length)): \(OpenSSLErrorQueue.drain())")
        }
        return code
    }

    /// The MAC as lowercase hex, as webhook receivers compare it.
    public static func hexAuthenticationCode(key: some Collection<UInt8>, message: some Collection<UInt8>) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in authenticationCode(key: key, message: message) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
