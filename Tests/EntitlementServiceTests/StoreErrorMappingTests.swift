import EntitlementPorts
@testable import EntitlementService
import RPCCore
import Testing

/// Each storage refusal reaches an RPC caller as the one status it can act on: a precise code
/// for what the request itself got wrong, UNAVAILABLE (retry) for what the store could not do,
/// and never the store's own detail when the store is at fault.
struct StoreErrorMappingTests {
    static let cases: [(StoreError.Code, RPCCode)] = [
        (.ownershipConflict, .permissionDenied),
        (.badPageToken, .invalidArgument),
        (.invalidWrite, .invalidArgument),
        (.storageFailure, .unavailable),
        (.closed, .unavailable),
        (.schemaTooNew, .unavailable),
        (.schemaMismatch, .unavailable),
    ]

    @Test(arguments: cases)
    func eachStoreErrorHasOneStatus(code: StoreError.Code, expected: RPCCode) {
        let error = StoreError(code: code, message: "disk full at /var/lib/entitlementd/x.sqlite")
        #expect(error.rpcError.code == expected)
        if expected == .unavailable {
            #expect(!error.rpcError.message.contains("/var/lib"), "store detail leaked: \(error.rpcError.message)")
        }
    }
}
