import HTTP2
import HTTPCore
import SeededRandom
import XCTest

/// ``HTTP2ServerSession`` (nghttp2's HTTP messaging off, ``RequestChecks`` on) against a bare
/// nghttp2 session with the library's checks on (``HTTP2ReferenceServer``): the same bytes must give
/// the same RST_STREAM codes, the same GOAWAYs and the same requests delivered, for every rule.
///
/// The one intended difference, a head with neither `:authority` nor `host`, is compared with
/// the reference given `host` at the end of that head, which satisfies nghttp2 and changes no
/// other rule's outcome (a regular field, valid, after every other field).
final class RequestChecksDifferentialTests: XCTestCase, RawFrameFeeding {
    /// One request as a client sends it: its head, DATA payloads, and trailers if any.
    struct Request: CustomStringConvertible {
        var head: [(String, String)]
        var payloads: [[UInt8]] = []
        var trailers: [(String, String)]?
        /// Whether the trailers (or, without trailers, the last frame) carry END_STREAM.
        var ends = true

        var description: String {
            "head \(head) data \(payloads.map(\.count)) trailers \(String(describing: trailers)) ends \(ends)"
        }

        var lacksAuthority: Bool { !head.contains { $0.0 == ":authority" || $0.0 == "host" } }
    }

    /// What a server did with stream 1.
    struct Outcome: Equatable {
        var resets: [UInt32]
        var goAways: [UInt32]
        var failed: Bool
        var delivered: [String]?
        var body: [UInt8]?
    }

    func frames(_ request: Request) -> [UInt8] {
        var bytes = headers(stream: 1, endStream: request.ends && request.payloads.isEmpty && request.trailers == nil,
                            request.head)
        for (index, payload) in request.payloads.enumerated() {
            let last = index == request.payloads.count - 1
            bytes += data(stream: 1, endStream: request.ends && last && request.trailers == nil, payload)
        }
        if let trailers = request.trailers { bytes += headers(stream: 1, endStream: request.ends, trailers) }
        return bytes
    }

    func resetCodes(_ bytes: [UInt8]) -> [UInt32] {
        var codes: [UInt32] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            if bytes[offset + 3] == 0x3, offset + 13 <= bytes.count {
                codes.append(bytes[(offset + 9)..<(offset + 13)].reduce(0) { $0 << 8 | UInt32($1) })
            }
            offset += 9 + length
        }
        return codes
    }

    func session(_ request: Request, cuts: [Int] = []) throws -> Outcome {
        let server = try HTTP2ServerSession(limits: HTTP2Limits())
        var outcome = Outcome(resets: [], goAways: [], failed: false)
        var output: [UInt8] = []
        for piece in [opening] + HTTP2ReferenceServer.reads(frames(request), cutAt: cuts) {
            let fed = try feed(server, piece)
            output += fed.output
            outcome.failed = outcome.failed || fed.failed
            for case .request(let id, let delivered) in fed.events where id == 1 {
                outcome.delivered = delivered.headers.map { "\($0.name): \($0.value)" }
                outcome.body = delivered.body
            }
        }
        outcome.resets = resetCodes(output)
        outcome.goAways = goAwayCodes(output)
        return outcome
    }

    func reference(_ request: Request, cuts: [Int] = []) throws -> Outcome {
        var request = request
        let added = request.lacksAuthority
        if added { request.head.append(("host", "added")) }
        let server = try HTTP2ReferenceServer()
        var outcome = Outcome(resets: [], goAways: [], failed: false)
        var output: [UInt8] = []
        for piece in [opening] + HTTP2ReferenceServer.reads(frames(request), cutAt: cuts) {
            guard let sent = server.feed(piece) else {
                outcome.failed = true
                break
            }
            output += sent
        }
        outcome.resets = resetCodes(output)
        outcome.goAways = goAwayCodes(output)
        if server.completed.contains(1), let stream = server.streams[1] {
            outcome.delivered = stream.fields.filter { !(added && $0 == "host: added") }
            outcome.body = stream.body
        }
        return outcome
    }

    func assertSameOutcome(_ request: Request, cuts: [Int] = [], file: StaticString = #filePath, line: UInt = #line)
        throws {
        let expected = try reference(request, cuts: cuts)
        let actual = try session(request, cuts: cuts)
        XCTAssertEqual(actual, expected, "\(request), cut at \(cuts)", file: file, line: line)
    }
}
