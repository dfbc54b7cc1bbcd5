import ErrorCodes

/// Why an ``EntitlementRepository`` could not do what was asked, in words the caller can act on.
///
/// Every implementation (SQLite, in memory, later PostgreSQL) throws these and nothing else, so
/// the service decides on the code alone. The code is extensible (a struct, not a public enum)
/// so new codes are not breaking changes; the service maps codes to gRPC status. ``cause``
/// holds the underlying error (e.g. SQLite's) for logs only: it may contain SQL and paths.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<StoreError>

    public var code: Code
    public var message: String
    public var cause: (any Error)?
    /// For ``Code/claimRefused``: which chain, who keeps it and why.
    public var refusal: ClaimRefusal?

    public init(code: Code, message: String, cause: (any Error)? = nil, refusal: ClaimRefusal? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
        self.refusal = refusal
    }

    public var description: String {
        guard let cause else { return "\(code): \(message)" }
        return "\(code): \(message) (cause: \(cause))"
    }
}

extension ErrorCode<StoreError> {
    /// Another user owns the chain and the policy is ``TransferPolicy/reject`` (PERMISSION_DENIED).
    public static var ownershipConflict: Self { Self("ownershipConflict") }
    /// The page token was not one this store issued (INVALID_ARGUMENT).
    public static var badPageToken: Self { Self("badPageToken") }
    /// The stored data was written by a newer entitlementd; refusing protects it.
    public static var schemaTooNew: Self { Self("schemaTooNew") }
    /// The stored data's applied migrations differ from this binary's: history was edited.
    public static var schemaMismatch: Self { Self("schemaMismatch") }
    /// The storage failed (disk full, I/O error, lock timeout); retrying may help.
    public static var storageFailure: Self { Self("storageFailure") }
    /// The store was closed (shutdown in progress).
    public static var closed: Self { Self("closed") }
    /// The write itself is malformed (e.g. a notification event naming no chain); retrying
    /// the same write fails again (INVALID_ARGUMENT, or HTTP 400 for a webhook).
    public static var invalidWrite: Self { Self("invalidWrite") }
    /// The chain belongs to another user by its app account token, or another user owns it
    /// and the claim offered only a transaction id (PERMISSION_DENIED under every policy);
    /// ``StoreError/refusal`` says which.
    public static var claimRefused: Self { Self("claimRefused") }
    /// The thing named (a grant) does not exist for that user (NOT_FOUND).
    public static var notFound: Self { Self("notFound") }
}
