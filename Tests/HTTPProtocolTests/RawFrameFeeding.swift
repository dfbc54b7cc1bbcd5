import HTTP2
import HTTPCore
import XCTest

/// Error codes and flags the hand-written frames use.
enum RawFrames {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let protocolError: UInt32 = 0x1
    static let streamClosed: UInt32 = 0x5
    static let endStream: UInt8 = 0x1
    static let endHeaders: UInt8 = 0x4
}

/// Frames written by hand and fed to an ``HTTP2ServerSession``: a real client library refuses
/// to send the illegal sequences these tests are about, which is the point.
protocol RawFrameFeeding {}

struct Fed {
    var events: [HTTP2Event] = []
    var output: [UInt8] = []
    var failed = false
}

extension RawFrameFeeding {
    func frame(type: UInt8, flags: UInt8, stream: Int32, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff), type, flags,
                UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
            + payload
    }

    /// An HPACK block of literal fields without indexing (RFC 7541 §6.2.2): no table state, so
    /// each block stands alone whatever order the frames go out in.
    func headerBlock(_ fields: [(String, String)]) -> [UInt8] {
        fields.flatMap { name, value -> [UInt8] in
            precondition(name.utf8.count < 127 && value.utf8.count < 127)
            return [0x00, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(value.utf8.count)] + Array(value.utf8)
        }
    }

    func headers(stream: Int32, endStream: Bool, _ fields: [(String, String)]) -> [UInt8] {
        frame(type: 0x1, flags: RawFrames.endHeaders | (endStream ? RawFrames.endStream : 0), stream: stream,
              headerBlock(fields))
    }

    func data(stream: Int32, endStream: Bool = false, _ payload: [UInt8] = [0, 0, 0, 0, 0]) -> [UInt8] {
        frame(type: 0x0, flags: endStream ? RawFrames.endStream : 0, stream: stream, payload)
    }

    func rstStream(_ stream: Int32, code: UInt32 = 0x8) -> [UInt8] {
        let payload = [UInt8(code >> 24), UInt8(code >> 16 & 0xff), UInt8(code >> 8 & 0xff), UInt8(code & 0xff)]
        return frame(type: 0x3, flags: 0, stream: stream, payload)
    }

    var request: [(String, String)] {
        [(":method", "POST"), (":scheme", "http"), (":path", "/pkg.Svc/M"), (":authority", "localhost"),
         ("content-type", "application/grpc"), ("te", "trailers")]
    }
    var trailers: [(String, String)] { [("x-trailer", "1")] }

    /// The preface and an empty SETTINGS frame: the start of every client connection.
    var opening: [UInt8] { RawFrames.preface + frame(type: 0x4, flags: 0, stream: 0, []) }

    /// Feeds `bytes`, then collects what the server wants to send.
    func feed(_ server: HTTP2ServerSession, _ bytes: [UInt8]) throws -> Fed {
        var fed = Fed()
        do {
            try bytes.withUnsafeBytes { try server.receive($0) }
        } catch {
            fed.failed = true
        }
        fed.events = server.takeEvents()
        try server.send(into: &fed.output)
        return fed
    }

    /// GOAWAY error codes in server output that starts at a frame boundary.
    func goAwayCodes(_ bytes: [UInt8]) -> [UInt32] {
        var codes: [UInt32] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            if bytes[offset + 3] == 0x7, offset + 9 + 8 <= bytes.count {
                codes.append(bytes[(offset + 13)..<(offset + 17)].reduce(0) { $0 << 8 | UInt32($1) })
            }
            offset += 9 + length
        }
        return codes
    }

    func requestIDs(_ events: [HTTP2Event]) -> [Int32] {
        events.compactMap { if case .request(let id, _) = $0 { return id } else { return nil } }
    }
}
