internal import CNGHTTP2
import HTTPCore

/// The C trampolines nghttp2 calls for an ``HTTP2ClientSession`` during `mem_recv` / `mem_send`.
///
/// Each recovers the session from user_data and only records what happened; none calls back
/// into nghttp2. Refusing an oversized header block is done by returning
/// TEMPORAL_CALLBACK_FAILURE, which nghttp2 documents as "reset this stream".
enum HTTP2ClientCallbacks: ReceiveCallbacks {

    @inline(__always)
    static func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2ClientSession {
        Unmanaged<HTTP2ClientSession>.fromOpaque(userData!).takeUnretainedValue()
    }

    static let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
        guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              let stream = owner(userData).stream(frame.pointee.hd.stream_id) else { return 0 }
        stream.block = HTTPHeaders()
        stream.status = nil
        stream.blockBytes = 0
        return 0
    }

    static let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
        let session = owner(userData)
        guard let frame, let name, let value,
              let stream = session.stream(frame.pointee.hd.stream_id) else { return 0 }
        stream.blockBytes += nameLength + valueLength + 32
        if stream.blockBytes > session.configuration.maxHeaderListSize {
            return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        if nameLength > 0 && name[0] == UInt8(ascii: ":") {
            if HeaderInterning.string(name, nameLength) == ":status" {
                stream.status = Int(HeaderInterning.string(value, valueLength))
            }
            return 0
        }
        stream.block.add(name: HeaderInterning.string(name, nameLength),
                         value: HeaderInterning.string(value, valueLength))
        return 0
    }

    static let onFrameRecv: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        let session = owner(userData)
        let header = frame.pointee.hd
        if header.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
            session.goAwayReceived = true
            session.events.append(.goAway(lastStreamID: frame.pointee.goaway.last_stream_id,
                                          errorCode: frame.pointee.goaway.error_code))
            return 0
        }
        guard header.type == UInt8(NGHTTP2_HEADERS.rawValue),
              let stream = session.stream(header.stream_id) else { return 0 }
        let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        if stream.finalResponseSeen {
            session.events.append(.trailers(streamID: header.stream_id, stream.block))
        } else if let status = stream.status, status >= 200 {
            // 1xx heads (100-continue, 103 early hints) are informational: wait for the final one.
            stream.finalResponseSeen = true
            session.events.append(.response(streamID: header.stream_id, status: status,
                                            headers: stream.block, endStream: endStream))
        }
        stream.block = HTTPHeaders()
        return 0
    }

    static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
        let session = owner(userData)
        guard let data, session.stream(streamID) != nil else { return 0 }
        session.events.append(.data(streamID: streamID, Array(UnsafeBufferPointer(start: data, count: length))))
        return 0
    }

    static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
        let session = owner(userData)
        guard session.removeStream(streamID) else { return 0 }
        session.events.append(.streamClosed(streamID: streamID, errorCode: errorCode))
        return 0
    }

    /// Copies the pending request body into nghttp2's frame buffer, ending the stream after it.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        let session = owner(userData)
        guard let stream = session.stream(streamID), let buffer, let flags else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        let n = copyPendingBody(stream.body, offset: &stream.bodyOffset, into: buffer, length: length)
        if stream.bodyOffset == stream.body.count {
            flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
            stream.body = []
            stream.bodyOffset = 0
        }
        return n
    }
}
