import AppStoreServerAPI
import RPCCore

extension ServerAPIError {
    /// One gRPC status per ``ServerAPIError/Code``, with the client's caller-safe message.
    var rpcError: RPCError {
        switch code {
        case .unauthorized: return RPCError(.failedPrecondition, message, cause: self)
        case .notFound: return RPCError(.notFound, message, cause: self)
        case .invalidRequest: return RPCError(.invalidArgument, message, cause: self)
        case .refused: return RPCError(.failedPrecondition, message, cause: self)
        case .unavailable: return RPCError(.unavailable, message, cause: self)
        default: return RPCError(.internal, message, cause: self)
        }
    }
}

extension ServerAPIDataRejected {
    var rpcError: RPCError {
        RPCError(.failedPrecondition,
                 "the App Store Server API answered with signed data that failed verification (\(what)); nothing "
                    + "was stored: check --apple-root-ca and --bundle-id against the API's signer",
                 cause: self)
    }
}
