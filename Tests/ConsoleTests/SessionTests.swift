import RPCCore
import Testing
@testable import Console

/// Sessions, the sign-in throttle and the expiry field, each a table of cases.
@Suite struct SessionTests {
    static let alice = Principal(name: "alice", roles: [.viewer])

    @Test func aSessionLastsItsLifetimeAndNoLonger() {
        let clock = TestClock()
        let sessions = ConsoleSessions(lifetimeMs: 1000, now: clock.now)
        let (id, session) = sessions.open(for: Self.alice)
        #expect(sessions.session(id: id)?.csrfToken == session.csrfToken)
        clock.advance(999)
        #expect(sessions.session(id: id) != nil)
        clock.advance(1)
        #expect(sessions.session(id: id) == nil)
        #expect(sessions.count == 0)
    }

    @Test func signOutEndsTheSessionAndIdsAndTokensAreUnrelatedAndRandom() {
        let sessions = ConsoleSessions(lifetimeMs: 1000, now: TestClock().now)
        let first = sessions.open(for: Self.alice)
        let second = sessions.open(for: Self.alice)
        #expect(first.id != second.id)
        #expect(first.session.csrfToken != second.session.csrfToken)
        #expect(first.id != first.session.csrfToken)
        #expect(first.id.count == 64 && first.id.allSatisfy(\.isHexDigit))
        sessions.close(id: first.id)
        #expect(sessions.session(id: first.id) == nil)
        #expect(sessions.session(id: second.id) != nil)
        #expect(sessions.session(id: "") == nil)
    }

    @Test func aFullStoreDropsTheOldestSession() {
        let clock = TestClock()
        let sessions = ConsoleSessions(lifetimeMs: 10_000, capacity: 2, now: clock.now)
        let oldest = sessions.open(for: Self.alice)
        clock.advance(1)
        let middle = sessions.open(for: Self.alice)
        clock.advance(1)
        let newest = sessions.open(for: Self.alice)
        #expect(sessions.session(id: oldest.id) == nil)
        #expect(sessions.session(id: middle.id) != nil)
        #expect(sessions.session(id: newest.id) != nil)
    }

    @Test func failuresPastTheLimitThrottleUntilTheWindowMoves() {
        let clock = TestClock()
        let throttle = SignInThrottle(limit: 3, windowMs: 60_000, now: clock.now)
        for _ in 0..<2 { throttle.recordFailure(client: "a") }
        #expect(throttle.retryAfterSeconds(client: "a") == nil)
        clock.advance(10_000)
        throttle.recordFailure(client: "a")
        #expect(throttle.retryAfterSeconds(client: "a") == 50)
        #expect(throttle.retryAfterSeconds(client: "b") == nil)
        clock.advance(50_000)
        #expect(throttle.retryAfterSeconds(client: "a") == nil)
    }

    @Test(arguments: [
        ("7d", Int64(7 * 86_400_000)),
        ("12h", Int64(12 * 3_600_000)),
        ("90m", Int64(90 * 60_000)),
        ("2w", Int64(14 * 86_400_000)),
        (" 1d ", Int64(86_400_000)),
    ])
    func spansCountFromNow(_ text: String, _ span: Int64) {
        #expect(ExpiryInput.milliseconds(text, now: 1000) == 1000 + span)
    }

    @Test(arguments: [
        ("1970-01-01", Int64(0)),
        ("2027-01-31", Int64(1_801_353_600_000)),
        ("2027-01-31T12:00Z", Int64(1_801_396_800_000)),
        ("2027-01-31T12:00:30", Int64(1_801_396_830_000)),
        ("2028-02-29", Int64(1_835_395_200_000)),
    ])
    func instantsAreUTC(_ text: String, _ expected: Int64) {
        #expect(ExpiryInput.milliseconds(text, now: 5) == expected)
    }

    @Test(arguments: ["", "soon", "0d", "-3d", "7x", "2027-02-30", "2027-13-01", "2027-1-1", "2027-01-31T25:00",
                      "2027-01-31T12", "d"])
    func othersAreRefused(_ text: String) {
        #expect(ExpiryInput.milliseconds(text, now: 5) == nil)
    }
}

/// Times as the pages show them.
@Suite struct ConsoleTextTests {
    @Test(arguments: [
        (Int64(0), "-"),
        (Int64(1_801_396_830_000), "2027-01-31T12:00:30Z"),
        (Int64(1_801_396_830_999), "2027-01-31T12:00:30Z"),
        (Int64(-1), "1969-12-31T23:59:59Z"),
    ])
    func timesAreUTCToTheSecond(_ milliseconds: Int64, _ expected: String) {
        #expect(ConsoleText.time(milliseconds) == expected)
    }

    @Test(arguments: [
        ("u1", nil as String?, "/console/customer?user=u1"),
        ("a&b c", "t/1=", "/console/customer?user=a%26b%20c&history=t%2F1%3D"),
    ])
    func customerPathsEncodeTheirValues(_ userID: String, _ page: String?, _ expected: String) {
        #expect(ConsoleText.customerPath(userID, historyPage: page) == expected)
    }
}
