import EntitlementPorts
import Entitlements

/// App account tokens in memory, as the SQL stores keep them in `account_tokens`.
extension InMemoryEntitlementStore: AccountTokens {
    public func appAccountToken(userID: String) async throws -> String {
        state.withLock { facts in
            if let token = facts.tokensByUser[userID] { return token }
            let token = AppAccountToken.random()
            facts.tokensByUser[userID] = token
            facts.usersByToken[token] = userID
            return token
        }
    }

    public func userID(appAccountToken token: String) throws -> String? {
        guard let canonical = AppAccountToken.canonical(token) else { return nil }
        return state.withLock { $0.usersByToken[canonical] }
    }

    public func owners(originalTransactionID: String) throws -> [ChainOwnership] {
        state.withLock { facts in
            guard let chain = facts.chains[originalTransactionID] else { return [] }
            var transfers: [(previousOwner: String, event: HistoryEvent)] = []
            for (user, events) in facts.history {
                for event in events.values
                where event.kind == .ownershipTransfer && event.originalTransactionID == originalTransactionID {
                    transfers.append((user, event))
                }
            }
            return ChainOwnership.timeline(
                transfers: transfers, currentOwner: chain.ownerID, currentSinceMs: nil,
                firstSeen: { user in
                    facts.history[user]?.values.filter {
                        $0.originalTransactionID == originalTransactionID && $0.kind != .claimRefused
                    }.map(\.occurredAtMs).min()
                })
        }
    }
}

/// Customer lookups in memory, over the same dictionaries the SQL stores' indexes mirror.
extension InMemoryEntitlementStore: CustomerLookup {
    public func originalTransactionID(ofTransaction transactionID: String) throws -> String? {
        state.withLock { $0.chainOfTransaction[transactionID] }
    }

    public func issuedAppAccountToken(userID: String) throws -> String? {
        state.withLock { $0.tokensByUser[userID] }
    }
}
