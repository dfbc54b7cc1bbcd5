import AppStoreServerAPI
import RPCCore

/// The RPC edge: where the service's domain errors become a gRPC status and a message the
/// caller may read and act on. Causes (Apple's answers, Foundation's text) stay in the
/// ``RPCError``'s cause, which only the server log prints.
enum ServiceErrors {
    /// `error` as the RPC layer answers it: domain errors mapped, ``RPCError``s and anything
    /// unknown unchanged (the RPC layer turns the unknown into INTERNAL without details).
    static func rpcError(for error: any Error) -> any Error {
        switch error {
        case let error as ReceiptVerificationError: return error.rpcError
        case let error as SignedTransactionError: return error.rpcError
        case let error as ServerAPIError: return error.rpcError
        case let error as ServerAPIDataRejected: return error.rpcError
        default: return error
        }
    }

    /// Runs one RPC's work, mapping what it throws.
    static func mapping<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw rpcError(for: error)
        }
    }
}

extension ReceiptVerificationError {
    /// UNAVAILABLE when waiting may help (Apple's side), INVALID_ARGUMENT / NOT_FOUND when the
    /// receipt itself is at fault, FAILED_PRECONDITION when this service is misconfigured.
    var rpcError: RPCError {
        switch self {
        case .appleUnreachable(let failure, let attempts):
            return RPCError(.unavailable, failure.exhaustedMessage(attempts: attempts), cause: failure)
        case .appleBusy(let status, let attempts):
            return RPCError(.unavailable, "Apple's verifyReceipt is temporarily unavailable (status \(status)) "
                            + "after \(attempts) attempts; retry later")
        case .appleUnavailable(let status):
            return RPCError(.unavailable,
                            "Apple's verifyReceipt answered status \(status), which is not retryable now; retry later")
        case .environmentLoop(let status):
            return RPCError(.unavailable,
                            "Apple sent the receipt back and forth between production and sandbox (status \(status))")
        case .unreadableReceipt:
            return RPCError(.invalidArgument, "Apple could not read the receipt data (status 21002): "
                            + "send the app's base64 receipt unchanged")
        case .invalidReceipt(let status):
            return RPCError(.invalidArgument,
                            "Apple rejected the receipt (status \(status)): it is not a valid App Store receipt")
        case .sharedSecretMismatch:
            return RPCError(.failedPrecondition, "Apple rejected the shared secret (status 21004): "
                            + "check --apple-shared-secret against App Store Connect")
        case .accountNotFound:
            return RPCError(.notFound, "Apple no longer knows the account of this receipt (status 21010): "
                            + "treat it as never purchased")
        case .otherBundle(let found, let expected):
            return RPCError(
                .invalidArgument, "receipt is for bundle '\(found ?? "(none)")', not this service's '\(expected)'")
        }
    }
}

extension SignedTransactionError {
    /// Always INVALID_ARGUMENT: the app sent something that is not a transaction of this app.
    var rpcError: RPCError {
        switch self {
        case .rejected(let error):
            return RPCError(.invalidArgument, "signed_transaction failed verification: \(error.message)")
        case .notATransaction(let reason):
            return RPCError(.invalidArgument, "signed_transaction is not a transaction: \(reason)")
        case .otherBundle(let found, let expected):
            return RPCError(
                .invalidArgument, "signed_transaction is for bundle '\(found ?? "(none)")', not '\(expected)'")
        }
    }
}
