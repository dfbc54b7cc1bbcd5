import AppStoreServerAPI
import EntitlementAPI
import EntitlementPorts
import Entitlements
import RPCCore

extension AppleOperations {
    /// ExtendSubscription: asks Apple to move the user's subscription renewal date later, then
    /// records Apple's new date as the chain's expiry at once, with a RENEWAL_EXTENDED event by
    /// the caller, so CheckEntitlement, watchers and webhooks see the extension before Apple's
    /// RENEWAL_EXTENDED notification arrives.
    ///
    /// The chain must be the user's (a transaction id is no secret); every argument is checked
    /// before Apple is asked. `request_id` is Apple's idempotency key and the record's: the same
    /// id sent again extends nothing more at Apple and adds nothing to history.
    public func extendSubscription(
        _ request: EntitlementV1.ExtendSubscriptionRequest, by caller: Principal, deadline: ContinuousClock.Instant?
    ) async throws -> EntitlementV1.ExtendSubscriptionResponse {
        let serverAPI = try configuredServerAPI()
        guard !request.userID.isEmpty else { throw RPCError(.invalidArgument, "user_id is required") }
        let days = Int(request.extendByDays)
        let reasonCode = Int(request.reasonCode)
        if let refusal = RenewalExtensionRules.refusal(
            originalTransactionID: request.originalTransactionID, extendByDays: days, reasonCode: reasonCode,
            requestID: request.requestID) {
            throw RPCError(.invalidArgument, refusal)
        }
        let facts = try withStoreErrors { try repository.facts(userID: request.userID) }
        guard let latest = facts.transactions.filter({ $0.originalTransactionID == request.originalTransactionID })
            .max(by: { $0.isOrdered(before: $1) }) else {
            throw RPCError(.notFound, "user '\(request.userID)' has no subscription with original transaction id "
                           + "\(request.originalTransactionID): check the id in the user's entitlements")
        }
        guard latest.expiresDateMs != nil else {
            throw RPCError(.failedPrecondition, "original transaction id \(request.originalTransactionID) is not an "
                           + "auto-renewable subscription: only a subscription's renewal date can be extended")
        }
        let requestID = AppAccountToken.canonical(request.requestID) ?? AppAccountToken.random()
        let answer = try await serverAPI.client.extendRenewalDate(
            originalTransactionID: request.originalTransactionID, extendByDays: days, reasonCode: reasonCode,
            requestIdentifier: requestID, environment: latest.environment, deadline: deadline)
        if !answer.originalTransactionID.isEmpty, answer.originalTransactionID != request.originalTransactionID {
            // Apple answered an earlier extension with this requestIdentifier, of another subscription.
            throw RPCError(.failedPrecondition, "request_id \(requestID) was already used to extend original "
                           + "transaction id \(answer.originalTransactionID): send a new request_id")
        }
        guard answer.success, answer.effectiveDateMs > 0 else {
            throw RPCError(.failedPrecondition, "Apple answered that it did not extend original transaction id "
                           + "\(request.originalTransactionID); nothing was recorded")
        }
        let recordedAtMs = now()
        var extended = latest
        extended.expiresDateMs = answer.effectiveDateMs
        let event = HistoryEvent(
            eventID: RenewalExtensionRules.eventID(requestID: requestID), kind: .renewalExtended,
            occurredAtMs: recordedAtMs, productID: latest.productID, transactionID: latest.transactionID,
            originalTransactionID: latest.originalTransactionID, expiresAtMs: answer.effectiveDateMs,
            environment: answer.environment, source: .operator, actor: caller.actor,
            reason: RenewalExtensionRules.reason(extendByDays: days, reasonCode: reasonCode))
        let outcome = try await withStoreErrors {
            try await repository.apply(NotificationWrite(
                source: .operator, sourceID: "extend:" + requestID, signedDateMs: recordedAtMs,
                transactions: [extended], events: [event]))
        }
        if !outcome.duplicate {
            logger?.info("subscription extended", [
                ("actor", caller.actor), ("user_id", request.userID),
                ("original_transaction_id", request.originalTransactionID), ("days", String(days)),
                ("reason_code", String(reasonCode)), ("request_id", requestID),
                ("effective_at_ms", String(answer.effectiveDateMs))])
        }
        let current = try withStoreErrors { try repository.facts(userID: request.userID) }
        var response = EntitlementV1.ExtendSubscriptionResponse()
        response.effectiveAtMs = answer.effectiveDateMs
        if let entitlement = EntitlementRules.entitlements(for: current, at: .now(now()), catalog: catalog)
            .first(where: { $0.originalTransactionID == request.originalTransactionID }) {
            var mapped = APIMapping.entitlements([entitlement])
            APIMapping.addAppAccountTokens(&mapped, from: current)
            response.entitlement = mapped.first
        }
        return response
    }
}
