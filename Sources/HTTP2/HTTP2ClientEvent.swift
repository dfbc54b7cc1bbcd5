import HTTPCore

/// What an ``HTTP2ClientSession`` learned from the bytes it was fed, per stream, in order.
public enum HTTP2ClientEvent: Sendable {
    /// The final (non-1xx) response head. `endStream` is true when the head is the whole
    /// answer, as in a gRPC trailers-only response.
    case response(streamID: Int32, status: Int, headers: HTTPHeaders, endStream: Bool)
    /// A chunk of response body, as it arrived.
    case data(streamID: Int32, [UInt8])
    /// The header block that followed the body; it ends the stream.
    case trailers(streamID: Int32, HTTPHeaders)
    /// The stream is over. `errorCode` is 0 when both sides ended it cleanly, otherwise the
    /// RST_STREAM (or GOAWAY) code: REFUSED_STREAM means the server never processed it.
    case streamClosed(streamID: Int32, errorCode: UInt32)
    /// The server is closing the connection: streams up to `lastStreamID` may still finish,
    /// new requests need a new connection.
    case goAway(lastStreamID: Int32, errorCode: UInt32)
}

/// RFC 9113 error codes a client acts on, so callers need not import nghttp2.
public enum HTTP2ErrorCode {
    public static let noError: UInt32 = 0x0
    public static let protocolError: UInt32 = 0x1
    public static let internalError: UInt32 = 0x2
    public static let flowControlError: UInt32 = 0x3
    public static let refusedStream: UInt32 = 0x7
    public static let cancel: UInt32 = 0x8
    public static let enhanceYourCalm: UInt32 = 0xb
    public static let inadequateSecurity: UInt32 = 0xc
}
