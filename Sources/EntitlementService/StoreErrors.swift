import EntitlementPorts
import RPCCore

/// Maps storage failures to gRPC status at the service boundary: what the caller can act on
/// gets a precise code, anything else becomes UNAVAILABLE (retryable) with a safe message.
extension StoreError {
    var rpcError: RPCError {
        switch code {
        case .ownershipConflict, .claimRefused:
            return RPCError(.permissionDenied, message, cause: self)
        case .notFound:
            return RPCError(.notFound, message, cause: self)
        case .badPageToken:
            return RPCError(
                .invalidArgument, "page_token is not one this server issued; start again without it", cause: self)
        case .invalidWrite:
            // The facts themselves cannot be stored (retrying the same request fails again): the
            // caller must not be told to retry. The message names what is wrong, never SQL.
            return RPCError(.invalidArgument, "the submitted facts cannot be stored: \(message)", cause: self)
        default:
            return RPCError(.unavailable, "storage is unavailable; retry later", cause: self)
        }
    }
}

/// Runs a storage call, turning its errors into gRPC status.
func withStoreErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StoreError {
        throw error.rpcError
    }
}

/// Public for the test-only service in EntitlementTesting, which writes through the same store.
public func withStoreErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as StoreError {
        throw error.rpcError
    }
}
