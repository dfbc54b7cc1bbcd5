/// Why a request got no HTTP answer: a small set of kinds callers act on, and libcurl's own
/// words for the log.
///
/// The kinds are the ones the service tells its callers apart by (refused, timed out, DNS,
/// dropped, TLS, garbage); every other libcurl failure is ``Kind/other`` with its number.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case connectionRefused
        case timedOut
        case hostNotResolved
        case connectionLost
        case tlsFailed
        case malformedResponse
        /// The response body passed ``HTTPClient/maxResponseBytes``.
        case responseTooLarge
        /// Any other libcurl code (CURLcode), e.g. 1 for an unsupported URL scheme.
        case other(code: Int)
    }

    public var kind: Kind
    /// The request's method and URL and libcurl's message (host, port, what the peer did):
    /// for the log only.
    public var detail: String

    public init(kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "HTTP client: \(detail)" }

    /// The kind for a CURLcode and the OS errno libcurl saw (CURLINFO_OS_ERRNO; 0 if none).
    ///
    /// Codes as numbers so the table is testable without importing libcurl; they are fixed by
    /// libcurl's ABI. The grouping follows what swift-corelibs-foundation's URLSession reported
    /// for the same codes, so callers read the same words as before the switch to libcurl.
    static func kind(curlCode: Int, osErrno: Int) -> Kind {
        let connectionRefusedErrno = 111  // ECONNREFUSED on Linux
        switch curlCode {
        case 7: return .connectionRefused  // CURLE_COULDNT_CONNECT
        case 28: return .timedOut  // CURLE_OPERATION_TIMEDOUT
        case 5, 6: return .hostNotResolved  // CURLE_COULDNT_RESOLVE_PROXY / _HOST
        case 18, 55, 56: return .connectionLost  // CURLE_PARTIAL_FILE, CURLE_SEND_ERROR, CURLE_RECV_ERROR
        // CURLE_SSL_CONNECT_ERROR, _ENGINE_NOTFOUND, _ENGINE_SETFAILED, _CERTPROBLEM, _CIPHER,
        // CURLE_PEER_FAILED_VERIFICATION, _SSL_ENGINE_INITFAILED, _SSL_CACERT_BADFILE,
        // _SSL_CRL_BADFILE, _SSL_ISSUER_ERROR, _SSL_PINNEDPUBKEYNOTMATCH, _SSL_INVALIDCERTSTATUS
        case 35, 53, 54, 58, 59, 60, 66, 77, 82, 83, 90, 91: return .tlsFailed
        // CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_GOT_NOTHING, CURLE_BAD_CONTENT_ENCODING,
        // CURLE_HTTP2_STREAM, CURLE_HTTP3
        case 8, 16, 52, 61, 92, 95: return .malformedResponse
        default: return osErrno == connectionRefusedErrno ? .connectionRefused : .other(code: curlCode)
        }
    }
}

extension HTTPClientError.Kind {
    /// The kind in a few plain words, for messages a caller or an operator reads ("connection
    /// refused"); libcurl's own text stays in ``HTTPClientError/detail`` for the log.
    ///
    /// One table for every user of the client, so the status of a webhook endpoint, a failed
    /// call to Apple and a command-line tool that cannot reach its server say the same thing.
    /// The words are the ones URLSession's codes were mapped to before this client replaced it.
    public var summary: String {
        switch self {
        case .connectionRefused: "connection refused"
        case .timedOut: "timed out"
        case .hostNotResolved: "host name not resolved"
        case .connectionLost: "connection lost"
        case .tlsFailed: "TLS handshake failed"
        case .malformedResponse: "malformed HTTP response"
        case .responseTooLarge: "response too large"
        case .other(let code): "network error \(code)"
        }
    }
}
