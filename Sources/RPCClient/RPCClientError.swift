import HTTPCore
import RPCCore

/// Why a call did not return a response message: the server's status, or what went wrong on
/// the way there.
///
/// Every error carries a gRPC ``RPCCode`` so callers handle both sources alike (UNAVAILABLE
/// for "cannot connect", DEADLINE_EXCEEDED for "no answer in time"); ``kind`` tells who
/// decided, which matters for retries and for messages shown to people.
public struct RPCClientError: Error, Sendable, CustomStringConvertible {
    /// Who produced the error. A struct over a private enum so kinds can be added later
    /// without breaking exhaustive switches in callers.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case status, transport, invalidCall }
        private let value: Value

        /// The server answered the call with a non-OK grpc-status.
        public static let status = Kind(value: .status)
        /// No verdict came back: could not connect, the connection broke, the deadline passed
        /// here, or the server's answer was not valid gRPC.
        public static let transport = Kind(value: .transport)
        /// The call was never sent: its metadata or path cannot be sent as gRPC.
        public static let invalidCall = Kind(value: .invalidCall)

        public var description: String {
            switch value {
            case .status: "status"
            case .transport: "transport"
            case .invalidCall: "invalid call"
            }
        }
    }

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
