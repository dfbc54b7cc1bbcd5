import HTTPCore
import RPCCore

extension RPCClientError {
    /// The error a call's final header block reports, or nil when it says grpc-status 0.
    ///
    /// Unary and streaming calls end alike: a block without a readable grpc-status means the
    /// server broke the protocol (a transport failure), and any other non-OK status is the
    /// server's verdict, with its percent-decoded grpc-message.
    init?(endOfCall block: HTTPHeaders) {
        guard let text = block["grpc-status"], let raw = Int(text) else {
            self.init(.transport, .unknown, "the server ended the call without a grpc-status", metadata: block)
            return
        }
        let code = RPCCode(rawValue: raw)
        guard code == .ok else {
            self.init(.status, code, block["grpc-message"].map(PercentEncoding.decode) ?? "", metadata: block)
            return
        }
        return nil
    }
}
