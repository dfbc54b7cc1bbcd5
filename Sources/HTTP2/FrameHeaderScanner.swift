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
    /// Header bytes read so far, and what they said: a header may be split between reads.
    private var have = 0
    private var length = 0
    private var type: UInt8 = 0
    private var streamID: UInt32 = 0

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
                let streamID = UInt32(truncatingIfNeeded: head) << 8 | UInt32(bytes[position + 8])
                position += 9
                skip = Int(head >> 40)
                return Header(type: UInt8(truncatingIfNeeded: head >> 32), streamID: Int32(streamID & 0x7fff_ffff),
                              length: skip, end: position)
            }
            let byte = bytes[position]
            position += 1
            switch have {
            case 0...2: length = length << 8 | Int(byte)
            case 3: type = byte
            case 4: break  // flags
            default: streamID = streamID << 8 | UInt32(byte)
            }
            have += 1
            guard have == 9 else { continue }
            let header = Header(type: type, streamID: Int32(streamID & 0x7fff_ffff), length: length, end: position)
            skip = length
            have = 0
            length = 0
            streamID = 0
            return header
        }
        return nil
    }
}
