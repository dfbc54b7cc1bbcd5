import EntitlementAPI
import EntitlementPorts
import Entitlements
import RPCCore

/// ExplainEntitlement: CheckEntitlement's answer with the rule and transactions behind it.
///
/// ``explainEntitlement(_:)`` and ``listHistory(_:)`` are public: the console shows the same
/// sentences and events as the RPCs, from the same code.
extension EntitlementRPCs {
    public func explainEntitlement(
        _ request: EntitlementV1.ExplainEntitlementRequest
    ) throws -> EntitlementV1.ExplainEntitlementResponse {
        let at = try evaluationTime(userID: request.userID, atMs: request.atMs)
        let facts = try withStoreErrors { try repository.facts(userID: request.userID) }
        let explanations = EntitlementRules.explain(facts, productID: request.productID,
                                                    entitlementID: request.entitlementID, at: at, catalog: catalog)
        let reporters = explanations.isEmpty ? [:] : try firstReporters(userID: request.userID)
        var response = EntitlementV1.ExplainEntitlementResponse()
        response.evaluatedAtMs = at.instantMs
        response.explanations = explanations.map { APIMapping.explanation($0, reporters: reporters) }
        return response
    }

    /// Who reported each of the user's transactions first, from their whole history.
    ///
    /// The stored transactions do not keep their reporter; the history event that recorded
    /// each one does. Read page by page at the largest size: explanations are for people, rare
    /// next to checks, and a user's history is a few hundred events at most in practice.
    private func firstReporters(userID: String) throws -> [String: HistoryEvent.Source] {
        var events: [HistoryEvent] = []
        var token: String?
        repeat {
            let page = try withStoreErrors {
                try repository.history(userID: userID, productID: nil, pageSize: HistoryPage.maximumPageSize,
                                       pageToken: token)
            }
            events += page.events
            token = page.nextPageToken.isEmpty ? nil : page.nextPageToken
        } while token != nil
        return HistoryEvent.firstReporters(in: events)
    }
}
