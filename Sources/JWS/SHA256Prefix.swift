import Glibc
internal import COpenSSL

/// SHA-256 part-way through a known prefix, for hashing many messages that start with it.
///
/// Every token a leaf signs starts its signing input with the same ~5 KB header text; the
/// compression function has then been run over all its whole 64-byte blocks once, and each
/// token's digest continues from a copy of that state with only its own bytes. The digest is
/// exactly SHA-256 of the whole message: ``digest(of:)`` checks the message really starts
/// with the prefix (a memcmp, far cheaper than hashing it) and declines otherwise.
///
/// Immutable after init (EVP_MD_CTX_copy_ex only reads the source), so shared across threads.
final class SHA256Prefix: @unchecked Sendable {
    private let state: OpaquePointer
    /// The bytes hashed into `state`: the prefix's whole 64-byte blocks.
    private let hashed: [UInt8]

    /// Hashes the whole blocks of `prefix`; nil if OpenSSL fails (callers hash in full).
    init?(_ prefix: ArraySlice<UInt8>) {
        guard let state = EVP_MD_CTX_new() else { return nil }
        let hashed = Array(prefix.prefix(prefix.count / 64 * 64))
        let ok = EVP_DigestInit_ex(state, EVP_sha256(), nil) == 1
            && hashed.withUnsafeBytes { EVP_DigestUpdate(state, $0.baseAddress, $0.count) } == 1
        guard ok else {
            EVP_MD_CTX_free(state)
            _ = OpenSSLErrorQueue.drain()
            return nil
        }
        self.state = state
        self.hashed = hashed
    }

    deinit { EVP_MD_CTX_free(state) }

    /// SHA-256 of `message` into `digest` (32 bytes); false if `message` does not start with the
    /// hashed prefix or OpenSSL fails.
    func digest(of message: ArraySlice<UInt8>, into digest: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        guard digest.count >= 32, message.count >= hashed.count else { return false }
        let same = message.withUnsafeBytes { text in
            hashed.withUnsafeBytes { prefix in
                prefix.isEmpty || memcmp(text.baseAddress!, prefix.baseAddress!, prefix.count) == 0
            }
        }
        guard same else { return false }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var length: UInt32 = 0
        let rest = message.dropFirst(hashed.count)
        let ok = EVP_MD_CTX_copy_ex(context, state) == 1
            && rest.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) } == 1
            && EVP_DigestFinal_ex(context, digest.baseAddress, &length) == 1
        guard ok, length == 32 else {
            _ = OpenSSLErrorQueue.drain()
            return false
        }
        return true
    }
}
