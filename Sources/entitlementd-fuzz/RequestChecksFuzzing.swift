import HTTP2
import HTTPCore

/// The `http2-request-checks` target: one request on stream 1, built from the input, fed to an
/// ``HTTP2ServerSession`` and to nghttp2 with its own checks on (``HTTP2ReferenceServer``); traps
/// when they reset, fail or deliver differently, so libFuzzer hunts for a rule ``RequestChecks``
/// keeps differently from nghttp2.
///
/// The input chooses fields from a vocabulary of the rules' names and values (or raw bytes), so
/// mutations move between rules instead of breaking HPACK. The one intended difference is ruled
/// out as the differential tests do: a head with neither `:authority` nor `host` reaches the
/// reference with `host` appended, and a request whose trailers alone carry `host` is skipped.
enum RequestChecksFuzzing {
    struct Request {
        var head: [Field] = []
        var payloads: [[UInt8]] = []
        var trailers: [Field]?
        var ends = true
        var cuts: [Int] = []
        /// Where the head's block continues in a CONTINUATION frame, if it does.
        var continuationAt: Int?

        var lacksAuthority: Bool { !head.contains { $0.isNamed(":authority") || $0.isNamed("host") } }
    }

    struct Field {
        var name: [UInt8]
        var value: [UInt8]
        init(_ name: [UInt8], _ value: [UInt8]) { (self.name, self.value) = (name, value) }
        init(_ name: String, _ value: String) { self.init(Array(name.utf8), Array(value.utf8)) }
        func isNamed(_ other: String) -> Bool { name.elementsEqual(other.utf8) }
    }

    /// What a server did with stream 1.
    struct Outcome: Equatable {
        var resets: [UInt32] = []
        var goAways: [UInt32] = []
        var failed = false
        var delivered: [String]?
        var body: [UInt8]?
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        var input = InputReader(bytes)
        var request = input.request()
        if request.lacksAuthority && (request.trailers ?? []).contains(where: { $0.isNamed("host") }) {
            return
        }
        let wire = RequestFrames.request(request)
        request.cuts = request.cuts.map { $0 % max(wire.count, 1) }
        let reads = HTTP2ReferenceServer.reads(wire, cutAt: request.cuts)
        guard let actual = session(reads), let expected = reference(request) else { return }
        if actual != expected {
            preconditionFailure("HTTP2ServerSession \(actual) but nghttp2 \(expected)")
        }
    }

    static func session(_ pieces: [[UInt8]]) -> Outcome? {
        guard let server = try? HTTP2ServerSession(limits: HTTP2Limits()) else { return nil }
        var outcome = Outcome()
        var output: [UInt8] = []
        for piece in [RequestFrames.opening] + pieces {
            if (try? piece.withUnsafeBytes { try server.receive($0) }) == nil { outcome.failed = true }
            for case .request(let id, let delivered) in server.takeEvents() where id == 1 {
                outcome.delivered = delivered.headers.map { "\($0.name): \($0.value)" }
                outcome.body = delivered.body
            }
            guard (try? server.send(into: &output)) != nil else { return nil }
        }
        outcome.resets = RequestFrames.codes(in: output, type: 0x3, at: 9)
        outcome.goAways = RequestFrames.codes(in: output, type: 0x7, at: 13)
        return outcome
    }

    /// nghttp2's outcome for the same request, its bytes cut at the same offsets.
    static func reference(_ request: Request) -> Outcome? {
        var request = request
        let added = request.lacksAuthority
        if added { request.head.append(Field("host", "added")) }
        let wire = RequestFrames.request(request)
        guard let server = try? HTTP2ReferenceServer() else { return nil }
        var outcome = Outcome()
        var output: [UInt8] = []
        for piece in [RequestFrames.opening] + HTTP2ReferenceServer.reads(wire, cutAt: request.cuts) {
            guard let sent = server.feed(piece) else {
                outcome.failed = true
                break
            }
            output += sent
        }
        outcome.resets = RequestFrames.codes(in: output, type: 0x3, at: 9)
        outcome.goAways = RequestFrames.codes(in: output, type: 0x7, at: 13)
        if server.completed.contains(1), let stream = server.streams[1] {
            outcome.delivered = stream.fields.filter { !(added && $0 == "host: added") }
            outcome.body = stream.body
        }
        return outcome
    }
}
