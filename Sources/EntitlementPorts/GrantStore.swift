import Entitlements

/// Entitlements given and revoked by hand (``Grant``), stored beside the user's Apple facts.
///
/// A port of its own beside ``EntitlementRepository``: only the operator RPCs write grants,
/// while every read already sees them in ``UserFacts/grants``. Each call is one write: the grant,
/// its history event and the change it makes commit together, so the change stream and
/// webhooks carry a grant like any other change.
public protocol GrantStore: Sendable {
    /// Stores `write.grant` with its GRANT event; durable and visible to reads when it returns.
    ///
    /// When the user already has a grant with `write.idempotencyKey`, that grant is returned
    /// unchanged and nothing is written: a retried request never grants twice.
    func grant(_ write: GrantWrite) async throws -> Grant

    /// Revokes the user's grant at `revocation.revokedAtMs` with its GRANT_REVOKED event and
    /// returns it. A grant already revoked is returned as it is (the first revocation stands).
    /// Throws ``StoreError/Code/notFound`` when the user has no grant with that id.
    func revokeGrant(_ revocation: GrantRevocation) async throws -> Grant
}

/// A grant to store, as the RPC resolved it (id chosen, start resolved, actor from the caller).
public struct GrantWrite: Sendable, Hashable {
    public var userID: String
    public var grant: Grant
    /// Empty: no key (every request is a new grant).
    public var idempotencyKey: String
    /// When it was given: the GRANT event's time.
    public var recordedAtMs: Int64

    public init(userID: String, grant: Grant, idempotencyKey: String, recordedAtMs: Int64) {
        self.userID = userID
        self.grant = grant
        self.idempotencyKey = idempotencyKey
        self.recordedAtMs = recordedAtMs
    }
}

/// A revocation to store.
public struct GrantRevocation: Sendable, Hashable {
    public var userID: String
    public var grantID: String
    public var actor: String
    public var reason: String
    public var revokedAtMs: Int64

    public init(userID: String, grantID: String, actor: String, reason: String, revokedAtMs: Int64) {
        self.userID = userID
        self.grantID = grantID
        self.actor = actor
        self.reason = reason
        self.revokedAtMs = revokedAtMs
    }
}

extension StoreError {
    /// The user has no grant with that id.
    public static func unknownGrant(_ grantID: String, userID: String) -> StoreError {
        StoreError(code: .notFound,
                   message: "user '\(userID)' has no grant '\(grantID)': list their entitlements to find its id")
    }
}
