/// Reads a request for ``RequestChecksFuzzing`` out of the fuzz input, one choice per byte.
///
/// Every byte string reads as some request (past the end, every byte is 0), so no mutation is
/// wasted on a parse failure; the vocabulary holds each rule's field with well-formed and broken
/// values, so a one-byte change moves a request from one rule to another.
struct InputReader {
    typealias Field = RequestChecksFuzzing.Field

    static let vocabulary: [(name: String, values: [String])] = [
        (":method", ["POST", "GET", "CONNECT", "OPTIONS", "HEAD", "", "G T", "get"]),
        (":scheme", ["http", "https", "HTTPS", "ftp", "", "1x", "a+b.c-1"]),
        (":path", ["/p", "/", "*", "p", "", "/a b", "/?q=1", "//"]),
        (":authority", ["a", "a:1", "", "a b", "[::1]:80", "a\u{1}"]),
        ("host", ["a", "", "a b"]),
        ("content-length", ["0", "1", "4", "9", "", "+1", "01", "-1", "1 ", "99999999999999999999"]),
        ("te", ["trailers", "Trailers", "gzip", "", "trailers, gzip"]),
        ("content-type", ["application/grpc"]), ("x-a", ["1", "", " 1", "a\u{1}", "a\u{7f}", "caf\u{e9}", "a\t b"]),
        (":protocol", ["websocket"]), (":status", ["200"]), (":x", ["1"]), (":", ["1"]),
        ("connection", ["close"]), ("keep-alive", ["1"]), ("proxy-connection", ["1"]),
        ("transfer-encoding", ["chunked"]), ("upgrade", ["h2c"]), ("priority", ["u=1"]),
        ("X-Up", ["1"]), ("x y", ["1"]), ("", ["1"]),
    ]

    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func next() -> Int {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return Int(bytes[offset])
    }

    mutating func raw(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(next()) } }

    /// A vocabulary field (most bytes), a vocabulary name with raw value, or both raw.
    mutating func field() -> Field {
        let choice = next()
        let entry = Self.vocabulary[choice % Self.vocabulary.count]
        if choice < 0xc0 { return Field(entry.name, entry.values[next() % entry.values.count]) }
        if choice < 0xe0 { return Field(Array(entry.name.utf8), raw(next() % 24)) }
        return Field(raw(next() % 16), raw(next() % 24))
    }

    /// Flags (END_STREAM withheld, trailers, how many cuts, CONTINUATION), the head, DATA,
    /// trailers, cuts, where the CONTINUATION starts.
    mutating func request() -> RequestChecksFuzzing.Request {
        var request = RequestChecksFuzzing.Request()
        let flags = next()
        request.ends = flags & 0x1 == 0
        request.head = (0..<next() % 10).map { _ in field() }
        request.payloads = (0..<next() % 4).map { _ in raw(next() % 12) }
        if flags & 0x2 != 0 { request.trailers = (0..<1 + next() % 2).map { _ in field() } }
        request.cuts = (0..<flags >> 2 & 0x3).map { _ in next() << 8 | next() }
        if flags & 0x10 != 0 { request.continuationAt = next() }
        return request
    }
}
