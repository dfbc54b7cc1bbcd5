import HTTP1

/// Which protocol a new connection speaks, decided from its first bytes.
///
/// HTTP/2 with prior knowledge starts with the client preface; anything else must be an
/// HTTP/1.x request line (``RequestLineRecognizer``). Bytes that are neither get no answer at
/// all: the connection just closes.
struct ProtocolDetection {
    enum Outcome: Equatable {
        case needMore
        case http2
        case http1
        /// Neither protocol: close without answering.
        case neither
    }

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// The preface's first line. A peer that sent it meant HTTP/2 even if what follows is
    /// wrong, so the HTTP/2 session judges the rest and answers GOAWAY(PROTOCOL_ERROR), the
    /// connection error RFC 9113 §3.4 asks for.
    static let prefaceRequestLineLength = 16

    private(set) var bytes: [UInt8] = []
    private var requestLine: RequestLineRecognizer

    init(maxRequestHeadBytes: Int) {
        requestLine = RequestLineRecognizer(maxLength: maxRequestHeadBytes)
    }

    /// Adds bytes read from the socket and says what they are so far.
    mutating func append(_ newBytes: UnsafeRawBufferPointer) -> Outcome {
        bytes.append(contentsOf: newBytes)
        let compared = min(bytes.count, Self.preface.count)
        let matched = zip(bytes[..<compared], Self.preface).prefix { $0 == $1 }.count
        if matched == compared {
            return compared == Self.preface.count ? .http2 : .needMore
        }
        if matched >= Self.prefaceRequestLineLength { return .http2 }
        switch requestLine.classify(bytes) {
        case .needMore: return .needMore
        case .http1: return .http1
        case .notHTTP1: return .neither
        }
    }

    /// True when the bytes so far are the start of an HTTP/1.x request (not the preface): a
    /// client that stalls there gets a 408, as it would mid-head.
    var isPartialHTTP1Request: Bool {
        !bytes.isEmpty && !bytes.elementsEqual(Self.preface.prefix(bytes.count))
    }
}
