import EntitlementAPI
import EntitlementPorts
import Entitlements
import EntitlementService
import RPCCore

/// The ``CustomerDesk`` of a running service: reads through the RPC handlers and the ports,
/// actions through the operator handlers, so the console and the RPCs never disagree.
public struct ServiceCustomerDesk: CustomerDesk {
    let rpcs: EntitlementRPCs
    let repository: any EntitlementRepository
    let accountTokens: any AccountTokens
    let lookup: any CustomerLookup
    let changeLog: (any EntitlementChangeLog)?
    let outbox: (any WebhookOutbox)?
    /// Apple's Look Up Order ID (the LookUpOrder RPC's handler), when the Server API is
    /// configured: the owners of the order's transactions.
    let orderLookup: (@Sendable (String) async throws -> [String])?

    /// History rows per page of the History table.
    static let historyPageSize: Int32 = 25
    /// The user's latest changes whose webhook deliveries are shown.
    static let deliveriesShown = 20

    public init(rpcs: EntitlementRPCs, repository: any EntitlementRepository, accountTokens: any AccountTokens,
                lookup: any CustomerLookup, changeLog: (any EntitlementChangeLog)?, outbox: (any WebhookOutbox)?,
                orderLookup: (@Sendable (String) async throws -> [String])? = nil) {
        self.rpcs = rpcs
        self.repository = repository
        self.accountTokens = accountTokens
        self.lookup = lookup
        self.changeLog = changeLog
        self.outbox = outbox
        self.orderLookup = orderLookup
    }

    /// Apple's order ids are short runs of capital letters and digits (`MK5TTTVWJH`).
    static func couldBeOrderID(_ term: String) -> Bool {
        (6...32).contains(term.utf8.count) && term.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) }
            && term.utf8.contains { (65...90).contains($0) }
    }

    public func search(_ term: String) async throws -> [CustomerMatch] {
        let term = String(term.trimmingWhitespace)
        guard !term.isEmpty else { return [] }
        return try await withStoreErrors {
            var matches: [CustomerMatch] = []
            func add(_ userID: String?, _ matchedBy: String) {
                guard let userID, !matches.contains(where: { $0.userID == userID }) else { return }
                matches.append(CustomerMatch(userID: userID, matchedBy: matchedBy))
            }
            if try isKnownUser(term) { add(term, "user id") }
            if AppAccountToken.canonical(term) != nil {
                add(try accountTokens.userID(appAccountToken: term), "app account token")
            }
            if let chain = try lookup.originalTransactionID(ofTransaction: term) {
                let how = chain == term ? "original transaction id" : "transaction id (chain \(chain))"
                add(try currentOwner(of: chain), how)
            } else {
                add(try currentOwner(of: term), "original transaction id")
            }
            // Apple is asked only for a term nothing here matched that could be an order id
            // (capital letters and digits, as on the customer's invoice): its rate is limited.
            if matches.isEmpty, let orderLookup, Self.couldBeOrderID(term) {
                for userID in try await orderLookup(term) { add(userID, "Apple order id") }
            }
            return matches
        }
    }

    public func customer(userID: String, historyPage: String?) async throws -> CustomerRecord {
        let explained = try rpcs.explainEntitlement(EntitlementV1.ExplainEntitlementRequest(userID: userID))
        let history = try rpcs.listHistory(EntitlementV1.ListHistoryRequest(
            userID: userID, pageSize: Self.historyPageSize, pageToken: historyPage ?? ""))
        return try await withStoreErrors {
            var record = CustomerRecord(userID: userID)
            record.entitlements = try explained.explanations.compactMap { explanation in
                guard let entitlement = explanation.entitlement else { return nil }
                return EntitlementRow(entitlement: entitlement, explanation: explanation.reason,
                                      ownerSinceMs: try ownerSince(entitlement, userID: userID))
            }
            record.history = history.events
            record.nextHistoryPage = history.nextPageToken
            record.appAccountToken = try lookup.issuedAppAccountToken(userID: userID)
            record.ownershipEvents = try ownershipEvents(userID: userID)
            record.webhooksConfigured = !(try outbox?.webhookStatus().filter(\.active).isEmpty ?? true)
            record.deliveries = try deliveries(userID: userID)
            return record
        }
    }

    public func grant(userID: String, entitlementID: String, expiresAtMs: Int64, reason: String,
                      by caller: Principal) async throws -> String {
        let request = EntitlementV1.GrantEntitlementRequest(
            userID: userID, entitlementID: entitlementID, expiresAtMs: expiresAtMs, reason: reason)
        return try await rpcs.grantEntitlement(request, by: caller).grantID
    }

    public func revokeGrant(userID: String, grantID: String, reason: String, by caller: Principal) async throws {
        _ = try await rpcs.revokeGrant(
            EntitlementV1.RevokeGrantRequest(userID: userID, grantID: grantID, reason: reason), by: caller)
    }

    public func refresh(userID: String, reason: String, by caller: Principal) async throws -> Int {
        let response = try await rpcs.refreshEntitlements(
            EntitlementV1.RefreshEntitlementsRequest(userID: userID), by: caller, reason: reason, deadline: nil)
        return Int(response.newTransactions)
    }

    /// A user the store knows anything about: facts, history or an issued token.
    private func isKnownUser(_ userID: String) throws -> Bool {
        let facts = try repository.facts(userID: userID)
        if !facts.transactions.isEmpty || !facts.grants.isEmpty { return true }
        if try !repository.history(userID: userID, productID: nil, pageSize: 1, pageToken: nil).events.isEmpty {
            return true
        }
        return try lookup.issuedAppAccountToken(userID: userID) != nil
    }

    private func currentOwner(of chain: String) throws -> String? {
        try accountTokens.owners(originalTransactionID: chain).last(where: { $0.untilMs == nil })?.userID
    }

    private func ownerSince(_ entitlement: EntitlementV1.Entitlement, userID: String) throws -> Int64? {
        guard entitlement.grantID.isEmpty else { return entitlement.purchasedAtMs }
        return try accountTokens.owners(originalTransactionID: entitlement.originalTransactionID)
            .last(where: { $0.userID == userID && $0.untilMs == nil })?.sinceMs
    }
}

extension StringProtocol {
    var trimmingWhitespace: SubSequence {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return self[endIndex...] }
        return self[first...last]
    }
}
