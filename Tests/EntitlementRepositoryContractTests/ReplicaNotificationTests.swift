@testable import PostgreSQLStore
import Testing

/// What replicas NOTIFY each other: every user arrives, payloads stay under pg_notify's limit,
/// and a user id that cannot travel on its own line widens the message to everyone.
struct ReplicaNotificationTests {
    @Test func usersRoundTripInPayloadsUnderTheLimit() throws {
        let users = Set((0..<2_000).map { "user-\($0)-" + String(repeating: "x", count: $0 % 40) })
        let payloads = ReplicaNotification.usersPayloads(replicaID: "r1", users: Array(users), maxBytes: 7_900)
        #expect(payloads.count > 1, "2,000 users do not fit one payload")
        var received = Set<String>()
        for payload in payloads {
            #expect(payload.utf8.count <= 7_900)
            let message = try #require(ReplicaNotification(channel: ChangeListener.usersChannel, payload: payload))
            #expect(message.replicaID == "r1")
            guard case let .users(batch) = message.content else {
                Issue.record("expected users, got \(message.content)")
                continue
            }
            received.formUnion(batch)
        }
        #expect(received == users)
    }

    @Test(arguments: [
        ([String]?.none, "nobody named: a seed"),
        (["a\nb", "c"], "a newline inside an id"),
        (["*"], "an id that reads as everyone"),
        ([String(repeating: "y", count: 8_000)], "an id longer than a payload"),
    ])
    func idsThatCannotTravelWidenToEveryone(users: [String]?, why: String) throws {
        let payloads = ReplicaNotification.usersPayloads(replicaID: "r2", users: users, maxBytes: 7_900)
        #expect(payloads == ["r2\n*"], "\(why)")
        let message = try #require(ReplicaNotification(channel: ChangeListener.usersChannel, payload: payloads[0]))
        #expect(message == ReplicaNotification(replicaID: "r2", content: .allUsers))
    }

    @Test func theNewestSequenceRoundTrips() {
        let payload = ReplicaNotification.changesPayload(replicaID: "r3", latestSequence: 9_007_199_254_740_993)
        #expect(ReplicaNotification(channel: ChangeListener.changesChannel, payload: payload)
                == ReplicaNotification(replicaID: "r3", content: .latestSequence(9_007_199_254_740_993)))
    }

    @Test(arguments: [
        ("entitlementd_users", "no-newline"),
        ("entitlementd_changes", "r1"),
        ("entitlementd_changes", "r1 not-a-number"),
        ("somebody_elses_channel", "r1\nalice"),
    ])
    func malformedNotificationsAreIgnored(channel: String, payload: String) {
        #expect(ReplicaNotification(channel: channel, payload: payload) == nil)
    }
}
