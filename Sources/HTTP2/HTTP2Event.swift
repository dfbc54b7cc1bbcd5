import HTTPCore

/// What the session learned from the bytes it was fed.
public enum HTTP2Event {
    /// A request arrived whole (END_STREAM seen): dispatch it.
    case request(streamID: Int32, HTTPRequest)
    /// The stream is gone (answered, reset by the peer, or the connection is closing): any work
    /// still running for it should be cancelled; a later response is dropped.
    case streamClosed(streamID: Int32)
}
