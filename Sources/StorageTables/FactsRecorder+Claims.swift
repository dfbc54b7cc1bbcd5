import EntitlementPorts
import Entitlements
import SQLDatabase

/// Who a chain belongs to: claims by a writing user, binding by app account token, and the
/// tokens themselves (`account_tokens`), all inside the writer's transaction, so two users can
/// never both own a chain and a crash leaves either the old owner or the new one.
extension FactsRecorder {
    /// One chain of a write, with the decision ``ClaimRules`` made for it.
    package struct Claim {
        package var chainID: String
        package var stored: StoredChain?
        package var decision: ClaimDecision
        /// The user row that keeps the chain when the claim is refused.
        package var keeperRow: Int64?
        /// Whether any of the chain's transactions (stored or arriving) carries a token.
        package var carriesToken: Bool
    }

    /// Decides every chain `write` names, before anything is written.
    package func decideClaims(_ write: FactsWrite) throws -> [Claim] {
        var claims: [Claim] = []
        let chainIDs = write.transactions.map(\.originalTransactionID)
            + write.renewalInfos.map(\.originalTransactionID)
        for chainID in chainIDs where !claims.contains(where: { $0.chainID.hasSameBytes(as: chainID) }) {
            let stored = try findChain(chainID)
            let incoming = write.transactions.filter { $0.originalTransactionID.hasSameBytes(as: chainID) }
            // A chain already the claimant's stays theirs without reading its tokens: the
            // refresh of one's own purchases is the common write.
            if let owner = stored?.ownerID, owner.hasSameBytes(as: write.userID) {
                claims.append(Claim(chainID: chainID, stored: stored, decision: .keep, carriesToken: true))
                continue
            }
            var tokens = AppAccountToken.carried(by: incoming)
            if let stored {
                for token in try storedTokens(chainRow: stored.row) where !tokens.contains(token) {
                    tokens.append(token)
                }
            }
            let tokenUser = try firstTokenUser(tokens)
            let decision = ClaimRules.decide(
                claimant: write.userID, owner: stored?.ownerID, tokenUser: tokenUser?.userID, proof: write.proof,
                policy: transferPolicy)
            var keeperRow: Int64?
            if case let .refuse(reason, _) = decision {
                keeperRow = reason == .token ? tokenUser?.row : stored?.ownerRow
            }
            claims.append(Claim(chainID: chainID, stored: stored, decision: decision, keeperRow: keeperRow,
                                carriesToken: !tokens.isEmpty))
        }
        return claims
    }

    /// The canonical tokens the chain's stored transactions carry.
    package func storedTokens(chainRow: Int64) throws -> [String] {
        let select = try db.prepare("""
            SELECT DISTINCT app_account_token FROM transactions
            WHERE chain_rowid = ? AND app_account_token IS NOT NULL
            """)
        select.bind(chainRow, at: 1)
        defer { select.reset() }
        var tokens: [String] = []
        while try select.step() {
            if let token = select.optionalString(at: 0).flatMap(AppAccountToken.canonical), !tokens.contains(token) {
                tokens.append(token)
            }
        }
        return tokens
    }

    /// The user a canonical token was issued to, with their row; nil for a token never issued.
    package func tokenUser(_ token: String) throws -> (row: Int64, userID: String)? {
        let select = try db.prepare(AccountTokenSQL.userOfToken)
        select.bind(token, at: 1)
        defer { select.reset() }
        guard try select.step() else { return nil }
        return (select.int64(at: 0), select.string(at: 1))
    }

    /// The user the first of `tokens` that this service issued belongs to.
    package func firstTokenUser(_ tokens: [String]) throws -> (row: Int64, userID: String)? {
        for token in tokens {
            if let user = try tokenUser(token) { return user }
        }
        return nil
    }

    /// Gives `chain` to `userRow`: its waiting events join the user's history when nobody owned
    /// it, else the previous owner's history records the transfer.
    package func moveChain(
        _ chain: StoredChain, chainID: String, to userRow: Int64, userID: String, productID: String,
        environment: Environment, source: HistoryEvent.Source, now: Int64, newEvents: inout Int
    ) throws {
        try setOwner(of: chain.row, to: userRow, now: now)
        guard let ownerRow = chain.ownerRow else {
            newEvents += try adoptPendingEvents(chainRow: chain.row, userRow: userRow)
            return
        }
        let transfer = HistoryDerivation.ownershipTransfer(
            originalTransactionID: chainID, productID: productID, toUserID: userID,
            occurredAtMs: now, environment: environment, source: source)
        if try insert(transfer, userRow: ownerRow) { newEvents += 1 }
    }

    /// Binds a notification's chain to the user whose issued token its transactions carry
    /// (``ClaimRules/bindByToken(owner:tokenUser:)``); returns the chain as it is now owned.
    package func bindByToken(
        _ chain: StoredChain, chainID: String, transactions: [Transaction], source: HistoryEvent.Source,
        now: Int64, outcome: inout NotificationOutcome, affectedUsers: inout Set<ExactID>
    ) throws -> StoredChain {
        let tokens = AppAccountToken.carried(by: transactions.lazy.filter {
            $0.originalTransactionID.hasSameBytes(as: chainID)
        })
        guard !tokens.isEmpty, let tokenUser = try firstTokenUser(tokens),
              case let .take(previousOwner) = ClaimRules.bindByToken(owner: chain.ownerID, tokenUser: tokenUser.userID)
        else { return chain }
        let sample = transactions.first { $0.originalTransactionID.hasSameBytes(as: chainID) }
        try moveChain(chain, chainID: chainID, to: tokenUser.row, userID: tokenUser.userID,
                      productID: sample?.productID ?? "", environment: sample?.environment ?? .production,
                      source: source, now: now, newEvents: &outcome.newEvents)
        outcome.boundByToken += 1
        if let previousOwner {
            outcome.ownershipTransfers += 1
            affectedUsers.insert(ExactID(previousOwner))
        }
        affectedUsers.insert(ExactID(tokenUser.userID))
        return StoredChain(row: chain.row, ownerRow: tokenUser.row, ownerID: tokenUser.userID)
    }
}

/// The `account_tokens` statements, shared by the writer and the readers.
package enum AccountTokenSQL {
    package static let userOfToken = """
        SELECT a.user_rowid, u.user_id FROM account_tokens a JOIN users u ON u.id = a.user_rowid WHERE a.token = ?
        """
    package static let tokenOfUser = """
        SELECT a.token FROM account_tokens a JOIN users u ON u.id = a.user_rowid WHERE u.user_id = ?
        """
    package static let ensureUser =
        "INSERT INTO users (user_id, created_at_ms) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING"
    package static let userRow = "SELECT id FROM users WHERE user_id = ?"
    package static let issue = """
        INSERT INTO account_tokens (token, user_rowid, issued_at_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
        """
}
