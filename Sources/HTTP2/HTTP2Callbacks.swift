internal import CNGHTTP2
import HTTPCore

/// The C trampolines nghttp2 calls during `mem_recv` / `mem_send`.
///
/// Each recovers the owning ``HTTP2ServerSession`` from user_data and only records what
/// happened; none calls back into nghttp2 except `submit_trailer` from the data read callback,
/// which nghttp2 documents as allowed there.
enum HTTP2Callbacks: ReceiveCallbacks {
    static func install(on callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks, onBeginFrame)
        installReceiveCallbacks(on: callbacks)
    }

    /// Runs `body` with the owning session without retaining it: the session outlives every
    /// callback nghttp2 makes (it deletes the nghttp2 session in its deinit). Every callback
    /// goes through here: each runs at least once per request, and a retained owner cost a
    /// retain and a release each time.
    @inline(__always)
    static func withOwner<R>(_ userData: UnsafeMutableRawPointer?, _ body: (HTTP2ServerSession) -> R) -> R {
        Unmanaged<HTTP2ServerSession>.fromOpaque(userData!)._withUnsafeGuaranteedRef(body)
    }

    /// Fails the connection (PROTOCOL_ERROR, see ``SessionIO``) on a HEADERS frame that reuses a
    /// stream identifier the client skipped: the RFC 9113 §5.1.1 check nghttp2 leaves out.
    static let onBeginFrame: nghttp2_on_begin_frame_callback = { _, header, userData in
        guard let header, header.pointee.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
        return withOwner(userData) { session in
            guard session.clientStreamIDs.admitHeaders(streamID: header.pointee.stream_id) else {
                return Int32(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
            }
            return 0
        }
    }

    static let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
        guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
        withOwner(userData) { $0.beginIncoming(frame.pointee.hd.stream_id) }
        return 0
    }

    /// Holds each field to ``RequestChecks`` before keeping it; a malformed request is reset and
    /// nghttp2 told to stop (TEMPORAL_CALLBACK_FAILURE: it skips the rest of the block).
    static let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
        withOwner(userData) { session in
            guard let frame, let name, let value else { return 0 }
            let id = frame.pointee.hd.stream_id
            let inTrailers = frame.pointee.headers.cat == NGHTTP2_HCAT_HEADERS
            return session.withIncomingStream(id) { stream -> Int32 in
                if stream.isRejected { return 0 }
                guard stream.checks.acceptField(name: UnsafeBufferPointer(start: name, count: nameLength),
                                                value: UnsafeBufferPointer(start: value, count: valueLength),
                                                inTrailers: inTrailers) else {
                    session.rejectMalformed(id, stream)
                    return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
                }
                stream.headerBytes += nameLength + valueLength + 32
                if stream.headerBytes > session.limits.maxHeaderListSize {
                    stream.headerLimitExceeded = true
                    return 0
                }
                if nameLength > 0 && name[0] == UInt8(ascii: ":") {
                    // Only two pseudo-headers are kept; the others (:scheme, :authority) need no String.
                    if HeaderInterning.equals(name, nameLength, ":path") {
                        stream.path = session.recentStrings.string(value, valueLength)
                    } else if HeaderInterning.equals(name, nameLength, ":method") {
                        stream.method = HeaderInterning.string(value, valueLength)
                    }
                } else {
                    if HeaderInterning.equals(name, nameLength, "content-length") {
                        stream.reserveBody(declaredLength: value, valueLength, limit: session.limits.maxRequestBodySize)
                    }
                    stream.headers.add(name: session.recentStrings.string(name, nameLength),
                                       value: session.recentStrings.string(value, valueLength))
                }
                return 0
            } ?? 0
        }
    }

    static let onFrameRecv: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        let type = frame.pointee.hd.type
        if type == UInt8(NGHTTP2_PING.rawValue) && frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 {
            withUnsafeBytes(of: frame.pointee.ping.opaque_data) { opaque in
                withOwner(userData) { $0.receivedPingAcknowledgement(opaque) }
            }
            return 0
        }
        if type == UInt8(NGHTTP2_RST_STREAM.rawValue) {
            // The client ended its side by resetting: the request will not complete.
            _ = withOwner(userData) { $0.removeIncoming(frame.pointee.hd.stream_id) }
            return 0
        }
        guard type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue) else { return 0 }
        let id = frame.pointee.hd.stream_id
        let endsStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        return withOwner(userData) { session in
            // Whether the request is complete; the stream leaves ``incoming`` only after this
            // closure, which borrows it unretained.
            let complete = session.withIncomingStream(id) { stream -> Bool in
                guard !stream.isRejected else { return false }
                let accepted: Bool
                if type == UInt8(NGHTTP2_DATA.rawValue) {
                    accepted = !endsStream || stream.checks.acceptEndOfStream()
                } else if frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
                    accepted = stream.checks.acceptHead(endsStream: endsStream)
                } else {
                    accepted = stream.checks.acceptTrailers(endsStream: endsStream)
                }
                if !accepted { session.rejectMalformed(id, stream) }
                return accepted && endsStream
            } ?? false
            if complete, let stream = session.removeIncoming(id) {
                session.events.append(.request(streamID: id, stream.takeRequest()))
            }
            return 0
        }
    }

    static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
        guard let data else { return 0 }
        withOwner(userData) { session in
            session.withIncomingStream(streamID) { stream in
                if stream.isRejected { return }
                guard stream.checks.acceptData(count: length) else {
                    session.rejectMalformed(streamID, stream)
                    return
                }
                if stream.bodyLimitExceeded { return }
                if stream.body.count + length > session.limits.maxRequestBodySize {
                    // Drop, don't truncate: the service answers "too large" and memory stays bounded.
                    stream.bodyLimitExceeded = true
                    stream.body = []
                    return
                }
                stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            }
        }
        return 0
    }

    /// A stream still collecting its request here is one the server reset while the client was
    /// sending; any other closed after the client ended its side (``ClientStreamIDs``).
    static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, _, userData in
        withOwner(userData) { session in
            if session.removeIncoming(streamID) == nil { session.clientStreamIDs.noteClosed(streamID) }
            if let body = session.outgoing.removeValue(forKey: streamID), body.isStreamed {
                session.openStreamedResponses -= 1
            }
            session.events.append(.streamClosed(streamID: streamID))
        }
        return 0
    }

    /// Copies the pending response body into nghttp2's frame buffer; at the end either ends
    /// the stream or, for gRPC, submits the trailers that end it.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        withOwner(userData) { session in
            guard let body = session.outgoing[streamID], let buffer else {
                return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
            }
            let n = copyPendingBody(body.bytes, offset: &body.offset, into: buffer, length: length)
            if n > 0 && body.isStreamed { session.drained.append((streamID: streamID, bytes: n)) }
            if body.offset == body.bytes.count && !body.isComplete {
                // A streamed body caught up with its writer: wait for more (or the finish).
                if n > 0 { return n }
                body.bytes.removeAll(keepingCapacity: true)
                body.offset = 0
                body.isDeferred = true
                return Int(NGHTTP2_ERR_DEFERRED.rawValue)
            }
            if body.offset == body.bytes.count {
                flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
                if let trailers = body.trailers {
                    flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue)
                    if session.submitTrailers(streamID: streamID, trailers: trailers) != 0 {
                        return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
                    }
                }
                session.outgoing[streamID] = nil
                if body.isStreamed { session.openStreamedResponses -= 1 }
            }
            return n
        }
    }
}
