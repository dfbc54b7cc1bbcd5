import EntitlementPorts
import Entitlements
import Testing

/// Grants on every backend: stored with their GRANT event (actor, reason), in the user's facts
/// from then on, idempotent by key per user, revoked once without erasing the past, unknown ids
/// refused, and each change in the change log.
struct GrantTests {
    /// Yesterday by the wall clock the stores date changes by, so the grant is running.
    static let startMs: Int64 = wallClockMs() - 86_400_000
    static let dayMs: Int64 = 86_400_000

    static func grants(_ store: any EntitlementRepository) throws -> any GrantStore {
        try #require(store as? any GrantStore, "every backend keeps grants")
    }

    static func write(_ user: String, id: String, key: String = "") -> GrantWrite {
        GrantWrite(userID: user, grant: Grant(grantID: id, entitlementID: "pro", startsAtMs: startMs,
                                              expiresAtMs: startMs + 7 * dayMs, actor: "alice", reason: "goodwill"),
                   idempotencyKey: key, recordedAtMs: startMs)
    }

    @Test(arguments: Backend.allCases)
    func aGrantIsAFactWithItsEventAndItsChange(backend: Backend) async throws {
        try await backend.withRepository { store in
            let grants = try Self.grants(store)
            let stored = try await grants.grant(Self.write("u", id: "g1"))
            #expect(stored == Self.write("u", id: "g1").grant)
            #expect(try store.facts(userID: "u").grants == [stored])
            #expect(try store.facts(userID: "other").grants.isEmpty)
            let event = try #require(store.history(userID: "u", productID: nil, pageSize: 0, pageToken: nil)
                .events.first)
            #expect(event == stored.grantedEvent(recordedAtMs: Self.startMs))
            #expect(event.actor == "alice" && event.reason == "goodwill" && event.source == .operator)
            #expect(try store.history(userID: "u", productID: "pro", pageSize: 0, pageToken: nil).events.count == 1)
            let log = try #require(store as? any EntitlementChangeLog)
            let changes = try log.changes(after: 0, userID: "u", limit: 10)
            #expect(changes.map(\.entitlement.grantID) == ["g1"])
            #expect(changes.first?.causeEventID == "grant:g1")
        }
    }

    @Test(arguments: Backend.allCases)
    func theSameKeyForTheSameUserReturnsTheFirstGrant(backend: Backend) async throws {
        try await backend.withRepository { store in
            let grants = try Self.grants(store)
            let first = try await grants.grant(Self.write("u", id: "g1", key: "k"))
            #expect(try await grants.grant(Self.write("u", id: "g2", key: "k")) == first)
            #expect(try await grants.grant(Self.write("v", id: "g3", key: "k")).grantID == "g3", "keys are per user")
            #expect(try await grants.grant(Self.write("u", id: "g4")).grantID == "g4")
            #expect(try await grants.grant(Self.write("u", id: "g5")).grantID == "g5", "no key: a new grant")
            #expect(try store.facts(userID: "u").grants.map(\.grantID) == ["g1", "g4", "g5"])
            #expect(try historyIDs(store, "u").count == 3)
        }
    }

    @Test(arguments: Backend.allCases)
    func aRevocationIsRecordedOnceAndUnknownGrantsAreNotFound(backend: Backend) async throws {
        try await backend.withRepository { store in
            let grants = try Self.grants(store)
            _ = try await grants.grant(Self.write("u", id: "g1"))
            let at = Self.startMs + Self.dayMs
            let revoked = try await grants.revokeGrant(
                GrantRevocation(userID: "u", grantID: "g1", actor: "bob", reason: "abuse", revokedAtMs: at))
            #expect(revoked.revokedAtMs == at && revoked.revokedBy == "bob" && revoked.revocationReason == "abuse")
            let again = try await grants.revokeGrant(
                GrantRevocation(userID: "u", grantID: "g1", actor: "carol", reason: "again", revokedAtMs: at + 1))
            #expect(again == revoked, "the first revocation stands")
            let facts = try store.facts(userID: "u")
            #expect(facts.grants == [revoked])
            #expect(EntitlementRules.check(facts, productID: "", entitlementID: "pro", at: .at(at - 1),
                                           catalog: .empty).active, "not retroactive")
            #expect(!EntitlementRules.check(facts, productID: "", entitlementID: "pro", at: .now(at + 1),
                                            catalog: .empty).active)
            let events = try store.history(userID: "u", productID: nil, pageSize: 0, pageToken: nil).events
            #expect(events.map(\.kind) == [.grantRevoked, .grant])
            #expect(events.first?.actor == "bob" && events.first?.reason == "abuse")
            await expectStoreError(.notFound) {
                _ = try await grants.revokeGrant(
                    GrantRevocation(userID: "u", grantID: "nope", actor: "bob", reason: "r", revokedAtMs: at))
            }
            await expectStoreError(.notFound) {
                _ = try await grants.revokeGrant(
                    GrantRevocation(userID: "v", grantID: "g1", actor: "bob", reason: "r", revokedAtMs: at))
            }
        }
    }
}
