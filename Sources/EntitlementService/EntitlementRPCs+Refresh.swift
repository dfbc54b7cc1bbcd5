import EntitlementAPI
import EntitlementPorts
import Entitlements
import RPCCore

/// RefreshEntitlements asked for by a person (the console), with who and why in the audit log.
extension EntitlementRPCs {
    /// RefreshEntitlements for `caller`, who must hold an operator role: the same refresh as the
    /// RPC, logged with the actor and `reason` before Apple is asked, so an attempt that fails
    /// at Apple is on record too. What it finds lands in history as Apple's own events.
    public func refreshEntitlements(
        _ request: EntitlementV1.RefreshEntitlementsRequest, by caller: Principal, reason: String,
        deadline: ContinuousClock.Instant?
    ) async throws -> EntitlementV1.RefreshEntitlementsResponse {
        guard !reason.allSatisfy(\.isWhitespace) else {
            throw RPCError(.invalidArgument, "reason is required: say why the entitlements are refreshed")
        }
        guard let refresh else { throw RPCError(.failedPrecondition, ReceiptSubmission.serverAPIRequired) }
        logger?.info("entitlements refresh requested", [
            ("actor", caller.actor), ("user_id", request.userID), ("reason", reason)])
        let response = try await refresh.refresh(request, deadline: deadline)
        try await recordRefresh(of: request.userID, by: caller, reason: reason)
        return response
    }

    /// Puts the refresh in the user's history, one event per chain asked about (history is kept
    /// per chain), so support sees who asked Apple again and why beside what Apple answered. A
    /// user with no chain has nowhere to keep it: the log line above is its only trace.
    private func recordRefresh(of userID: String, by caller: Principal, reason: String) async throws {
        let facts = try withStoreErrors { try repository.facts(userID: userID) }
        let latest = Dictionary(grouping: facts.transactions, by: \.originalTransactionID)
            .compactMapValues { $0.max { $0.isOrdered(before: $1) } }
        guard !latest.isEmpty else { return }
        let at = now()
        let events = latest.values.sorted { $0.originalTransactionID < $1.originalTransactionID }.map { chain in
            HistoryEvent(
                eventID: "refreshed:\(chain.originalTransactionID):\(at)", kind: .refreshed, occurredAtMs: at,
                productID: chain.productID, transactionID: chain.transactionID,
                originalTransactionID: chain.originalTransactionID, expiresAtMs: chain.expiresDateMs ?? 0,
                environment: chain.environment, source: .operator, actor: caller.actor, reason: reason)
        }
        _ = try await withStoreErrors {
            try await repository.apply(NotificationWrite(
                source: .operator, sourceID: "refresh:\(userID):\(at)", signedDateMs: at,
                transactions: Array(latest.values), events: events))
        }
    }
}
