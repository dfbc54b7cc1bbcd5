import ErrorCodes
import HTTPCore
import RPCCore

/// Why a call did not return a response message: the server's status, or what went wrong on
/// the way there.
///
/// Every error carries a gRPC ``RPCCode`` so callers handle both sources alike (UNAVAILABLE
/// for "cannot connect", DEADLINE_EXCEEDED for "no answer in time"); ``kind`` tells who
/// decided, which matters for retries and for messages shown to people.
public struct RPCClientError: Error, Sendable, CustomStringConvertible {
    /// Who produced the error; kinds can be added later without breaking callers' switches.
    public typealias Kind = ErrorCode<RPCClientError>

    public var kind: Kind
    public var code: RPCCode
    /// For ``Kind/status``, the server's grpc-message, percent-decoded.
    public var message: String
    /// The trailers (or trailers-only headers) that carried the status; empty otherwise.
    public var metadata: HTTPHeaders

    public init(_ kind: Kind, _ code: RPCCode, _ message: String, metadata: HTTPHeaders = HTTPHeaders()) {
        self.kind = kind
        self.code = code
        self.message = message
        self.metadata = metadata
    }

    /// `CODE: message`, the form people see on the command line.
    public var description: String { message.isEmpty ? "\(code)" : "\(code): \(message)" }
}

extension ErrorCode<RPCClientError> {
    /// The server answered the call with a non-OK grpc-status.
    public static var status: Self { Self("status") }
    /// No verdict came back: could not connect, the connection broke, the deadline passed
    /// here, or the server's answer was not valid gRPC.
    public static var transport: Self { Self("transport") }
    /// The call was never sent: its metadata or path cannot be sent as gRPC.
    public static var invalidCall: Self { Self("invalid call") }
}
