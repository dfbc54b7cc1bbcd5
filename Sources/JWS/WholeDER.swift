internal import COpenSSL

/// An OpenSSL `d2i_*` decoder (`d2i_X509`, `d2i_PUBKEY`, ...) as Swift imports it.
typealias DERDecoder = (UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, Int)
    -> OpaquePointer?

/// Decodes `der` as exactly one object with `decode`, or nil: bytes after the object are refused,
/// not ignored, so what the caller checks is all it was given. `free` releases an object that
/// parsed but left bytes over.
func decodeWholeDER(_ der: [UInt8], _ decode: DERDecoder, free: (OpaquePointer?) -> Void) -> OpaquePointer? {
    der.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return nil }
        var cursor: UnsafePointer<UInt8>? = base
        guard let object = decode(nil, &cursor, buffer.count) else { return nil }
        guard cursor == base + buffer.count else {
            free(object)
            return nil
        }
        return object
    }
}
