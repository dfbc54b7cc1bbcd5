/// Decides from a connection's first bytes whether they can begin an HTTP/1.x request.
///
/// The port that serves HTTP/1.1 also serves HTTP/2 with prior knowledge, so some peers speak
/// neither: an HTTP/2 client whose preface is wrong, a TLS ClientHello, a scanner. Answering
/// them with an HTTP/1.1 400 replies in a protocol they never spoke (RFC 9113 §3.4 wants a
/// connection error for a bad preface; h2spec 3.5/2 checks it), so bytes that cannot be an
/// HTTP/1.x request line are closed without an answer. A request that *is* HTTP/1.x but
/// malformed further on still reaches ``HTTP1RequestParser`` and gets its 4xx.
///
/// The grammar is RFC 9112 §3's `method SP request-target SP HTTP-version CRLF`, with the
/// empty lines §2.2 says to ignore before it and a bare LF accepted as the line end, as
/// http_parser does. The target is checked only for what cannot appear in it (controls,
/// spaces); the parser judges the rest. A value type fed the growing buffer: it resumes where
/// it stopped, so a peer dribbling one byte at a time costs linear work.
public struct RequestLineRecognizer: Sendable {
    public enum Verdict: Equatable, Sendable {
        /// Every byte so far fits a request line; the line has not ended.
        case needMore
        /// A whole HTTP/1.x request line (or more bytes than the line may take: the parser's
        /// limits answer those).
        case http1
        /// These bytes cannot begin an HTTP/1.x request.
        case notHTTP1
    }

    private enum Part: Sendable {
        case emptyLines, method, target, version, carriageReturn
    }

    private static let versionPrefix = Array("HTTP/1.".utf8)

    /// Past this many bytes without a line end the verdict is ``Verdict/http1``: the parser's
    /// own head limit then answers (431), as it would for any long request line.
    public let maxLength: Int
    private var part = Part.emptyLines
    private var partLength = 0
    private var scanned = 0
    private var verdict = Verdict.needMore

    public init(maxLength: Int = 16 * 1024) {
        self.maxLength = maxLength
    }

    /// Classifies `bytes`, the connection's input from its first byte; each call passes the
    /// same bytes again with more appended.
    public mutating func classify(_ bytes: some Collection<UInt8>) -> Verdict {
        guard verdict == .needMore else { return verdict }
        for byte in bytes.dropFirst(scanned) {
            scanned += 1
            verdict = step(byte)
            if verdict != .needMore { return verdict }
            if scanned >= maxLength {
                verdict = .http1
                return verdict
            }
        }
        return verdict
    }

    private mutating func step(_ byte: UInt8) -> Verdict {
        switch part {
        case .emptyLines:
            if byte == .cr || byte == .lf { return .needMore }
            part = .method
            return step(byte)
        case .method:
            if byte == .space && partLength > 0 { return advance(to: .target) }
            return accept(byte.isTokenCharacter)
        case .target:
            if byte == .space && partLength > 0 { return advance(to: .version) }
            // Visible ASCII and obs-text; controls, DEL and a second space never belong.
            return accept(byte > 0x20 && byte != 0x7f)
        case .version:
            if partLength < Self.versionPrefix.count { return accept(byte == Self.versionPrefix[partLength]) }
            if partLength == Self.versionPrefix.count {
                return accept(byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            }
            if byte == .lf { return .http1 }
            return byte == .cr ? advance(to: .carriageReturn) : .notHTTP1
        case .carriageReturn:
            return byte == .lf ? .http1 : .notHTTP1
        }
    }

    private mutating func accept(_ fits: Bool) -> Verdict {
        guard fits else { return .notHTTP1 }
        partLength += 1
        return .needMore
    }

    private mutating func advance(to next: Part) -> Verdict {
        part = next
        partLength = 0
        return .needMore
    }
}

extension UInt8 {
    fileprivate static let cr = UInt8(ascii: "\r")
    fileprivate static let lf = UInt8(ascii: "\n")
    fileprivate static let space = UInt8(ascii: " ")
    private static let tokenSymbols = Array("!#$%&'*+-.^_`|~".utf8)

    /// RFC 9110 §5.6.2 tchar: the characters a method name may use.
    fileprivate var isTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return UInt8.tokenSymbols.contains(self)
        }
    }
}
