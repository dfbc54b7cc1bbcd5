import EntitlementPorts

/// The SQLite store's ways of phrasing its failures as ``StoreError``s.
extension StoreError {
    /// Wraps a lower-level failure as ``Code/storageFailure`` unless it already is a StoreError.
    package static func storage(_ error: any Error, _ what: String) -> StoreError {
        if let error = error as? StoreError { return error }
        return StoreError(code: .storageFailure, message: "\(what) failed; retry later", cause: error)
    }

    package static let closedStore = StoreError(
        code: .closed, message: "the entitlement store is closed; the service is shutting down")
}
