import AppStore
@testable import EntitlementService
import Entitlements
import Foundation
import JWS
import Synchronization
import Testing
import TestSupport

/// The state the verifier actor owns, seen from its callers: flights that end when their last
/// caller leaves, and the fair bound on calls to Apple.
struct ReceiptVerifierActorTests {
    private let receipt = "cmVjZWlwdA=="
    private var key: String { SHA256.hexHash(receipt.utf8) }

    @Test func theLastCallerLeavingCancelsTheCallAndUnlistsTheFlight() async throws {
        let apple = StallingApple()
        let verifier = ReceiptVerifier(configuration: Harness.verifierConfiguration(), client: apple,
                                       now: Harness.clock)
        let caller = Task { try await verifier.verify(receiptData: receipt) }
        try await eventually("the call reached Apple") { apple.started == 1 }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(await verifier.flightsInProgress == 0, "no caller is left, so no flight may be joined")
        try await eventually("Apple's call was cancelled") { apple.cancelled == 1 }
    }

    /// A client retrying right after its deadline must get an answer, not the cancellation of the
    /// flight its first call abandoned (whose HTTP call may still be winding down).
    @Test func aCallerArrivingAfterAnAbandonedFlightGetsLiveWork() async throws {
        let apple = StallingApple(windDown: true)
        let verifier = ReceiptVerifier(configuration: Harness.verifierConfiguration(), client: apple,
                                       now: Harness.clock)
        let first = Task { try await verifier.verify(receiptData: receipt) }
        try await eventually("the first call reached Apple") { apple.started == 1 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        try await eventually("the first call is winding down") { apple.cancelled == 1 }
        apple.answerNow = true
        let verified = try await verifier.verify(receiptData: receipt)
        #expect(verified.transactions.map(\.transactionID) == ["1000"])
        apple.finishWindingDown()
    }

    @Test func callsBeyondTheBoundQueueInArrivalOrder() async throws {
        let apple = ScriptedApple((0..<4).map { .verifyReceipt(Harness.validReceipt(chain: "\($0)")) })
        var configuration = Harness.verifierConfiguration()
        configuration.maxConcurrency = 1
        let verifier = Harness.verifier(apple, configuration)
        apple.hold()
        let first = Task { try await verifier.verify(receiptData: "MA==") }
        try await eventually("the first holds the permit") { apple.heldCalls == 1 }
        var queued: [Task<VerifiedReceipt, any Error>] = []
        for index in 1..<4 {
            queued.append(Task { try await verifier.verify(receiptData: "MQ==\(index)") })
            try await eventually("caller \(index) queued") { await verifier.queuedForApple == index }
        }
        apple.release()
        _ = try await first.value
        for task in queued { _ = try await task.value }
        // Apple answers in call order, so each caller's chain shows the order it was let through.
        let bodies = apple.calls.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(bodies.count == 4)
        for (index, body) in bodies.enumerated().dropFirst() {
            #expect(body.contains("MQ==\(index)"), "call \(index) went to Apple in arrival order")
        }
    }

    @Test func aCancelledWaiterLeavesTheQueueAndTakesNoPermit() async throws {
        let apple = ScriptedApple([.verifyReceipt(Harness.validReceipt()), .verifyReceipt(Harness.validReceipt())])
        var configuration = Harness.verifierConfiguration()
        configuration.maxConcurrency = 1
        let verifier = Harness.verifier(apple, configuration)
        apple.hold()
        let holder = Task { try await verifier.verify(receiptData: "MA==") }
        try await eventually("the holder has the permit") { apple.heldCalls == 1 }
        let waiter = Task { try await verifier.verify(receiptData: "MQ==") }
        try await eventually("the waiter queued") { await verifier.queuedForApple == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(await verifier.queuedForApple == 0)
        apple.release()
        _ = try await holder.value
        // The permit came back: the next call goes straight to Apple.
        _ = try await verifier.verify(receiptData: "Mg==")
        #expect(apple.calls.count == 2)
    }
}

/// An Apple that never answers until cancelled, counting calls started and cancelled; with
/// `windDown` a cancelled call lingers (as an HTTP client tearing its transfer down) until
/// ``finishWindingDown()``. Once ``answerNow`` is set, new calls answer a valid receipt.
private final class StallingApple: AppleHTTPClient {
    private struct State {
        var started = 0
        var cancelled = 0
        var answerNow = false
        var windingDown: [CheckedContinuation<Void, Never>] = []
        var wound = false
    }
    private let state = Mutex(State())
    private let windDown: Bool

    init(windDown: Bool = false) { self.windDown = windDown }

    var started: Int { state.withLock { $0.started } }
    var cancelled: Int { state.withLock { $0.cancelled } }
    var answerNow: Bool {
        get { state.withLock { $0.answerNow } }
        set { state.withLock { $0.answerNow = newValue } }
    }

    func finishWindingDown() {
        let waiting = state.withLock { state in
            state.wound = true
            defer { state.windingDown.removeAll() }
            return state.windingDown
        }
        for continuation in waiting { continuation.resume() }
    }

    func post(_ url: URL, body: [UInt8], timeout: Duration) async throws -> (status: Int, body: [UInt8]) {
        let answer = state.withLock { state in
            state.started += 1
            return state.answerNow
        }
        if answer { return (200, Harness.validReceipt().jsonBody()) }
        do {
            try await Task.sleep(for: .seconds(60))
        } catch {
            state.withLock { $0.cancelled += 1 }
            if windDown {
                await withCheckedContinuation { continuation in
                    let done = state.withLock { state in
                        if !state.wound { state.windingDown.append(continuation) }
                        return state.wound
                    }
                    if done { continuation.resume() }
                }
            }
            throw error
        }
        return (200, Harness.validReceipt().jsonBody())
    }
}
