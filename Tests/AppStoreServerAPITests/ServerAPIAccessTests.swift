@testable import AppStoreServerAPI
import JWS
import Synchronization
import Testing

/// The actor every Server API request passes: one signature for many callers, new tokens when
/// the old one nears expiry or is refused, and the rate's spacing, all at made-up instants.
struct ServerAPIAccessTests {
    static let nowMs: Int64 = 1_800_000_000_000

    static func access(rate: Double = 10, nowNs: @escaping @Sendable () -> Int64 = { 0 },
                       mint: @escaping ServerAPIAccess.Mint) throws -> ServerAPIAccess {
        let credentials = ServerAPICredentials(keyID: "KEY123", issuerID: "issuer-1", bundleID: "com.example.app",
                                               key: try ES256SigningKey.generate())
        return ServerAPIAccess(credentials: credentials, requestsPerSecond: rate, lifetimeSeconds: 1200,
                               renewBeforeSeconds: 300, nowNs: nowNs, mint: mint)
    }

    @Test func concurrentCallersShareOneSignatureAndTheActorServesOthersMeanwhile() async throws {
        let callers = 16
        let signing = SigningGate()
        let access = try Self.access { _ in await signing.sign() }
        let tokens = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<callers { group.addTask { try await access.token(nowMs: Self.nowMs) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // The signer is held until every other caller has parked behind it, which they can only
        // do on the actor while it signs.
        try await poll("one signer and the others parked") {
            let parked = await access.callersWaitingForMint
            return signing.started == 1 && parked == callers - 1
        }
        #expect(await access.reserveRequest() == .zero)
        signing.finish()
        let answered = try await tokens.value
        #expect(answered.count == callers)
        #expect(Set(answered) == ["token-1"])
        #expect(signing.started == 1)
        #expect(await access.mintCount == 1)
    }

    @Test func aTokenIsSignedAgainNearExpiryAndAfterApplesRefusal() async throws {
        let signed = Mutex(0)
        let access = try Self.access { _ in "token-\(signed.withLock { $0 += 1; return $0 })" }
        #expect(try await access.token(nowMs: Self.nowMs) == "token-1")
        // Reused while more than renewBeforeSeconds (300) of its 1200 are left.
        #expect(try await access.token(nowMs: Self.nowMs + 899_000) == "token-1")
        #expect(try await access.token(nowMs: Self.nowMs + 901_000) == "token-2")
        // A refusal of a token already replaced leaves the new one in place.
        await access.refused("token-1")
        #expect(try await access.token(nowMs: Self.nowMs + 901_000) == "token-2")
        await access.refused("token-2")
        #expect(try await access.token(nowMs: Self.nowMs + 901_000) == "token-3")
        #expect(await access.mintCount == 3)
    }

    @Test func aFailedSignatureReachesEveryWaiterAndTheNextCallSignsAgain() async throws {
        let signed = Mutex(0)
        let access = try Self.access { _ in
            if signed.withLock({ $0 += 1; return $0 }) == 1 { throw SigningFailed() }
            return "token-2"
        }
        await #expect(throws: SigningFailed.self) { try await access.token(nowMs: Self.nowMs) }
        #expect(try await access.token(nowMs: Self.nowMs) == "token-2")
    }

    @Test func concurrentCallersAreSpacedAtTheRateAfterTheBurst() async throws {
        // Rate 10/s, so a burst of 10, then one every 100 ms, whoever reaches the actor first.
        let access = try Self.access(rate: 10, nowNs: { 5_000_000_000 }) { _ in "unused" }
        let waits = await withTaskGroup(of: Duration.self) { group in
            for _ in 0..<25 { group.addTask { await access.reserveRequest() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let expected = Array(repeating: Duration.zero, count: 10) + (1...15).map { Duration.milliseconds(100 * $0) }
        #expect(waits.sorted() == expected)
        // A place given back is the next caller's.
        await access.cancelReservation()
        #expect(await access.reserveRequest() == .milliseconds(1500))
    }
}

struct SigningFailed: Error {}

/// A signer that stays in its signature until the test lets it finish.
final class SigningGate: Sendable {
    private let state = Mutex<(started: Int, finished: Bool, waiting: CheckedContinuation<Void, Never>?)>(
        (0, false, nil))

    var started: Int { state.withLock { $0.started } }

    func sign() async -> String {
        let count = state.withLock { $0.started += 1; return $0.started }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.finished { return true }
                state.waiting = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        return "token-\(count)"
    }

    func finish() {
        let waiting = state.withLock { state in
            state.finished = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }
}

/// Polls `condition` (which may read an actor) every millisecond, for up to ten seconds.
func poll(_ what: String, _ condition: () async -> Bool) async throws {
    for _ in 0..<10_000 {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("gave up waiting: \(what)")
    throw CancellationError()
}
