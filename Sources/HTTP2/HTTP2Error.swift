/// A connection-level failure: the peer broke the protocol; the connection must close after
/// flushing what the session queued (usually a GOAWAY).
public struct HTTP2Error: Error, CustomStringConvertible {
    public let code: Int32
    public let description: String
}
