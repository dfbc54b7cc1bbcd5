internal import CNGHTTP2

/// The byte pump both session wrappers share: feed nghttp2, drain nghttp2.
enum SessionIO {
    /// `nghttp2_session_mem_recv`. A fatal error (bad preface, flooding, callback failure)
    /// leaves nghttp2's session running, so it is ended here: the flushed GOAWAY is the last
    /// frame and the session stops wanting I/O.
    static func receive(_ session: OpaquePointer, _ bytes: UnsafeRawBufferPointer) throws(HTTP2Error) {
        guard let base = bytes.baseAddress else { return }
        let consumed = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        if consumed < 0 {
            let code = Int32(consumed)
            nghttp2_session_terminate_session(session, NGHTTP2_PROTOCOL_ERROR.rawValue)
            throw HTTP2Error(code: code, description: String(cString: nghttp2_strerror(code)))
        }
    }

    /// Appends everything nghttp2 wants to send now; the chunk `mem_send` returns is valid only
    /// until its next call, hence the copy.
    static func send(_ session: OpaquePointer, into buffer: inout [UInt8]) throws(HTTP2Error) {
        while true {
            var chunk: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &chunk)
            if n < 0 {
                let code = Int32(n)
                throw HTTP2Error(code: code, description: String(cString: nghttp2_strerror(code)))
            }
            guard n > 0, let chunk else { return }
            buffer.append(contentsOf: UnsafeBufferPointer(start: chunk, count: n))
        }
    }
}
