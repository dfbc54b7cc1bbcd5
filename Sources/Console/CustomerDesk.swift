import EntitlementAPI
import RPCCore

/// What the console reads about customers and what it does to them.
///
/// The pages and routes know only this protocol: ``ServiceCustomerDesk`` implements it over the
/// same handlers and ports as the RPCs (so a grant from the console passes the same checks and
/// lands in the same history and audit log), and the console's tests use a small in-memory one.
/// Errors are ``RPCError``s, whose messages are written for the person who has to act on them.
/// The values it answers are built only here and in those tests (`@testable`), so they keep Swift's
/// memberwise initializers rather than public ones.
public protocol CustomerDesk: Sendable {
    /// The customers a search term names, best match first; empty when none does.
    func search(_ term: String) async throws -> [CustomerMatch]
    /// Everything the customer page shows, with one page of history (`historyPage` from a
    /// previous record's ``CustomerRecord/nextHistoryPage``; nil for the newest).
    func customer(userID: String, historyPage: String?) async throws -> CustomerRecord
    /// Grants an entitlement by hand; returns the grant id.
    func grant(userID: String, entitlementID: String, expiresAtMs: Int64, reason: String,
               by caller: Principal) async throws -> String
    func revokeGrant(userID: String, grantID: String, reason: String, by caller: Principal) async throws
    /// Asks Apple again about the customer's chains; returns how many transactions were new.
    func refresh(userID: String, reason: String, by caller: Principal) async throws -> Int
}

/// One search hit: the customer and why they matched.
public struct CustomerMatch: Sendable, Hashable {
    public var userID: String
    /// What matched, as a person reads it: "user id", "app account token", "transaction 2000…".
    public var matchedBy: String
}

/// Everything the customer page shows about one user.
public struct CustomerRecord: Sendable {
    public var userID: String
    public var entitlements: [EntitlementRow] = []
    /// One page of history, newest first.
    public var history: [EntitlementV1.HistoryEvent] = []
    /// The token of the next (older) history page; empty on the last page.
    public var nextHistoryPage: String = ""
    /// The app account token issued to the user; nil when none was issued yet.
    public var appAccountToken: String?
    /// Chains this user lost to another account, and claims other accounts made on theirs.
    public var ownershipEvents: [OwnershipEvent] = []
    /// How this user's recent changes stand with each webhook endpoint, newest first.
    public var deliveries: [WebhookDeliveryRow] = []
    /// Whether webhooks are configured at all (otherwise the section says so).
    public var webhooksConfigured: Bool = false
}

/// One row of the Entitlements table: the entitlement as CheckEntitlement answers it, the
/// sentence ExplainEntitlement gives for it, and since when the user has owned it.
public struct EntitlementRow: Sendable {
    public var entitlement: EntitlementV1.Entitlement
    public var explanation: String
    /// When the chain became this user's (a grant: its start); nil when no event says.
    public var ownerSinceMs: Int64?
}

/// A chain this user lost, or another account's refused claim on one of theirs.
public struct OwnershipEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The chain moved from this user to ``OwnershipEvent/otherUserID``.
        case lostTo
        /// ``OwnershipEvent/otherUserID`` tried to claim this user's chain and was refused.
        case claimRefused
    }

    public var kind: Kind
    public var originalTransactionID: String
    public var otherUserID: String
    public var occurredAtMs: Int64
}

/// One of the user's changes as one webhook endpoint has it.
public struct WebhookDeliveryRow: Sendable, Hashable {
    public var changeID: String
    public var occurredAtMs: Int64
    /// The entitlement the change is about (product, or entitlement id for a grant).
    public var subject: String
    /// The state the change reports, as the CLI prints states.
    public var state: String
    public var endpoint: String
    /// Where the delivery stands, in words ("retrying: 3 attempts, next at …").
    public var status: String
}
