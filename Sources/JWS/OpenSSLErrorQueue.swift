internal import COpenSSL

/// Reads and empties OpenSSL's per-thread error queue.
///
/// Every failed call leaves entries on the calling thread's queue; a verifier that runs on a
/// shared thread pool must drain them, or the next unrelated caller on that thread sees stale
/// errors (and the queue grows without bound).
enum OpenSSLErrorQueue {
    /// The queued reasons joined by "; ", oldest first; empty when nothing was queued.
    static func drain() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.joined(separator: "; ")
    }
}
