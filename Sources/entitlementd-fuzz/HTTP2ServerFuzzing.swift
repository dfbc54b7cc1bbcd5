import HTTP2
import HTTPCore

/// The `http2-server` target: the input as a client's frames into a real ``HTTP2ServerSession``,
/// after the client's preface and SETTINGS, with every request the session delivers answered.
///
/// The opening is given rather than fuzzed so that mutations go into HEADERS, CONTINUATION and
/// DATA instead of rediscovering 33 fixed bytes. Answers vary with the stream id (whole, streamed
/// and finished on the next read, streamed and aborted, reset), so the response paths run under
/// the same input that shaped the request; what the session writes is discarded.
enum HTTP2ServerFuzzing {
    /// The client connection preface and an empty SETTINGS frame.
    static let opening: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 0x4, 0, 0, 0, 0, 0]

    static func run(_ bytes: UnsafeRawBufferPointer) {
        // A small body limit, so a body past it (dropped and flagged) is within reach.
        guard let session = try? HTTP2ServerSession(limits: HTTP2Limits(maxRequestBodySize: 1 << 12)) else { return }
        var connection = Connection(session: session)
        guard opening.withUnsafeBytes({ connection.exchange($0) }) else { return }
        var offset = 0
        while offset < bytes.count {
            // Reads end where the input says, as grpc-frames does: a frame cut anywhere must work.
            let end = min(bytes.count, offset + Int(bytes[offset] % 61) + 1)
            guard connection.exchange(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) else { return }
            offset = end
        }
        session.beginDrain()
        connection.flush()
    }

    /// One connection's loop thread as the transport runs it: read, dispatch, write.
    struct Connection {
        let session: HTTP2ServerSession
        /// Streamed responses to finish (or abort) on the next read, as a handler would later.
        var unfinished: [Int32] = []
        var written: [UInt8] = []

        /// Feeds one read and answers what it completed; false once the connection is over.
        mutating func exchange(_ piece: UnsafeRawBufferPointer) -> Bool {
            let received = (try? session.receive(piece)) != nil
            for id in unfinished {
                if id & 0x8 == 0 {
                    session.finishStream(streamID: id, trailers: ["grpc-status": "0"])
                } else {
                    session.abortStream(streamID: id, trailers: ["grpc-status": "1"])
                }
            }
            unfinished.removeAll(keepingCapacity: true)
            for event in session.takeEvents() {
                guard case .request(let id, let request) = event else { continue }
                answer(id, request)
            }
            return flush() && received && session.isActive
        }

        mutating func answer(_ id: Int32, _ request: HTTPRequest) {
            let echo = Array(request.body.prefix(64))
            switch id >> 1 & 0x3 {
            case 0:
                session.submit(streamID: id, response: HTTPResponse(
                    status: 200, headers: ["content-type": "application/grpc"], body: echo,
                    trailers: ["grpc-status": "0"]))
            case 1:
                session.submit(streamID: id, response: .text(request.headerLimitExceeded ? 431 : 404, request.path))
            case 2:
                guard session.submitStreamHead(streamID: id, status: 200, headers: ["content-type": "application/grpc"])
                else { return }
                session.appendStream(streamID: id, bytes: echo)
                unfinished.append(id)
            default:
                session.reset(streamID: id)
            }
        }

        /// Takes everything the session wants to write; false when it failed doing so.
        @discardableResult
        mutating func flush() -> Bool {
            written.removeAll(keepingCapacity: true)
            _ = session.takeDrained()
            return (try? session.send(into: &written)) != nil
        }
    }
}
