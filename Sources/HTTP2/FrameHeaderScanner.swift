/// Finds each frame header in the bytes a client sends, across reads, so the session can look
/// at a frame before nghttp2 decides what to do with it.
///
/// nghttp2 drops a DATA frame on a stream it no longer keeps without telling the application
/// (no callback at all), and ``HTTP2ServerSession`` has it keep no closed streams: RFC 9113's
/// STREAM_CLOSED check on such frames is made here instead (``ClientStreamIDs``).
struct FrameHeaderScanner {
    struct Header {
        var type: UInt8
        var streamID: Int32
        var length: Int
        /// Where the header ends in the buffer being scanned (its payload starts there).
        var end: Int
    }

    /// Bytes to pass before the next header: the client connection preface, then each payload.
    private var skip = 24
    /// A header split between reads: how many of its bytes came so far, and they, in order.
    private var have = 0
    private var partial: UInt128 = 0

    /// The next header completed in `bytes` at or after `position`, which moves past it (to the
    /// end of `bytes` when no header completes there).
    mutating func next(in bytes: UnsafeRawBufferPointer, position: inout Int) -> Header? {
        while position < bytes.count {
            if skip > 0 {
                let passed = min(skip, bytes.count - position)
                skip -= passed
                position += passed
                continue
            }
            if have == 0 && bytes.count - position >= 9 {
                // The usual case, a whole header in this read: two loads instead of nine steps.
                let head = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                position += 9
                return header(UInt128(head) << 8 | UInt128(bytes[position - 1]), end: position)
            }
            partial = partial << 8 | UInt128(bytes[position])
            position += 1
            have += 1
            guard have == 9 else { continue }
            let bits = partial
            have = 0
            partial = 0
            return header(bits, end: position)
        }
        return nil
    }

    /// The header in `bits` (its nine bytes, first byte highest); its payload is skipped next.
    private mutating func header(_ bits: UInt128, end: Int) -> Header {
        skip = Int(truncatingIfNeeded: bits >> 48)
        let streamID = Int32(truncatingIfNeeded: bits & 0x7fff_ffff)
        return Header(type: UInt8(truncatingIfNeeded: bits >> 40), streamID: streamID, length: skip, end: end)
    }
}
