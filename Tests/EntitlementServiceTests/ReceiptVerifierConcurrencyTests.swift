import AppStore
@testable import EntitlementService
import Foundation
import JWS
import Synchronization
import Testing

/// What the ``ReceiptVerifier`` actor promises concurrent callers: one Apple call per receipt in
/// flight, every waiter answered (with the result or the leader's error), the bound on calls to
/// Apple, and a caller that gives up never stranding the others.
@Suite(.timeLimit(.minutes(2)))
struct ReceiptVerifierConcurrencyTests {
    private let receipt = "cmVjZWlwdA=="
    private var key: String { SHA256.hexHash(receipt.utf8) }

    @Test func theLeadersFailureReachesEveryWaiterAndTheNextCallAsksAgain() async throws {
        let apple = ScriptedApple([.status(21003), .verifyReceipt(Harness.validReceipt())])
        let verifier = Harness.verifier(apple)
        apple.hold()
        let callers = 12
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    do {
                        _ = try await verifier.verify(receiptData: receipt)
                        return 0
                    } catch ReceiptVerificationError.invalidReceipt(status: 21003) {
                        return 1
                    }
                }
            }
            try await until("every caller waits on the one call") {
                await verifier.callers(for: key) == callers && apple.heldCalls == 1
            }
            apple.release()
            return try await group.reduce(0, +)
        }
        #expect(failures == callers, "each waiter gets the leader's error")
        #expect(apple.calls.count == 1)
        let verified = try await verifier.verify(receiptData: receipt)
        #expect(verified.transactions.map(\.transactionID) == ["1000"], "a failed flight is not remembered")
        #expect(apple.calls.count == 2)
    }

    @Test func theFirstCallerGivingUpLeavesTheSharedCallRunning() async throws {
        let apple = ScriptedApple([.verifyReceipt(Harness.validReceipt())])
        let verifier = Harness.verifier(apple)
        apple.hold()
        let first = Task { try await verifier.verify(receiptData: receipt) }
        try await until("the first caller reached Apple") { apple.heldCalls == 1 }
        let others = (0..<5).map { _ in Task { try await verifier.verify(receiptData: receipt) } }
        try await until("the others joined") { await verifier.callers(for: key) == 6 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(await verifier.callers(for: key) == 5)
        apple.release()
        for other in others {
            #expect(try await other.value.transactions.count == 1)
        }
        #expect(apple.calls.count == 1)
    }

    @Test func whenEveryCallerLeavesTheNextOneStartsAfresh() async throws {
        let apple = ScriptedApple([.verifyReceipt(Harness.validReceipt()), .verifyReceipt(Harness.validReceipt())])
        let verifier = Harness.verifier(apple)
        apple.hold()
        let gone = (0..<3).map { _ in Task { try await verifier.verify(receiptData: receipt) } }
        try await until("three callers on one call") { await verifier.callers(for: key) == 3 && apple.heldCalls == 1 }
        for task in gone { task.cancel() }
        for task in gone { await #expect(throws: CancellationError.self) { try await task.value } }
        #expect(await verifier.callers(for: key) == 0, "the abandoned flight is unlisted")
        let fresh = Task { try await verifier.verify(receiptData: receipt) }
        try await until("the newcomer made its own call") { apple.heldCalls == 2 }
        apple.release()
        #expect(try await fresh.value.transactions.count == 1, "not the abandoned flight's cancellation")
        #expect(apple.calls.count == 2)
    }

    @Test func neverMoreCallsToAppleThanPermits() async throws {
        let apple = PacedApple(answer: Harness.validReceipt())
        var configuration = Harness.verifierConfiguration()
        configuration.maxConcurrency = 3
        let verifier = ReceiptVerifier(configuration: configuration, client: apple, now: Harness.clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<30 {
                group.addTask { _ = try await verifier.verify(receiptData: "receipt-\(index)") }
            }
            try await group.waitForAll()
        }
        #expect(apple.calls == 30, "distinct receipts share nothing")
        #expect(apple.peak == 3, "the bound is reached and never passed")
        #expect(await verifier.queuedForPermits == 0)
    }

    @Test func aCallerGivingUpInThePermitQueueTakesNoPermitAndStrandsNoOne() async throws {
        let apple = ScriptedApple([.verifyReceipt(Harness.validReceipt(chain: "1")),
                                   .verifyReceipt(Harness.validReceipt(chain: "3"))])
        var configuration = Harness.verifierConfiguration()
        configuration.maxConcurrency = 1
        let verifier = Harness.verifier(apple, configuration)
        apple.hold()
        let holding = Task { try await verifier.verify(receiptData: "QUFBQQ==") }
        try await until("the one permit is in use") { apple.heldCalls == 1 }
        let leaving = Task { try await verifier.verify(receiptData: "QkJCQg==") }
        try await until("the second queued") { await verifier.queuedForPermits == 1 }
        let staying = Task { try await verifier.verify(receiptData: "Q0NDQw==") }
        try await until("the third queued") { await verifier.queuedForPermits == 2 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(await verifier.queuedForPermits == 1)
        apple.release()
        #expect(try await holding.value.transactions.map(\.transactionID) == ["1"])
        #expect(try await staying.value.transactions.map(\.transactionID) == ["3"], "the permit skips the leaver")
        #expect(apple.calls.count == 2)
    }

    /// The shape of the old hang (1 in 20 concurrent SubmitReceipt calls never answered):
    /// many rounds of identical and distinct receipts at once, with callers giving up at random;
    /// every caller that stays must be answered.
    @Test func roundsOfConcurrentCallersAreAllAnswered() async throws {
        let apple = PacedApple(answer: Harness.validReceipt(), pause: .microseconds(200))
        var configuration = Harness.verifierConfiguration()
        configuration.maxConcurrency = 4
        let verifier = ReceiptVerifier(configuration: configuration, client: apple, now: Harness.clock)
        for round in 0..<40 {
            let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let work = Task { try await verifier.verify(receiptData: "r\(round)-\(index % 3)") }
                        if index % 7 == 3 { work.cancel() }
                        do {
                            _ = try await work.value
                            return true
                        } catch is CancellationError {
                            return index % 7 == 3
                        }
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(answered == 20, "round \(round)")
        }
        #expect(await verifier.queuedForPermits == 0)
        #expect(apple.calls <= 40 * 3 * 2, "per receipt and round: its flight, and one more if its only caller left")
    }
}

/// An Apple that answers every call with `answer` after `pause`, counting calls and the most
/// in progress at once.
private final class PacedApple: AppleHTTPClient {
    private let state = Mutex((calls: 0, now: 0, peak: 0))
    private let body: [UInt8]
    private let pause: Duration

    init(answer: VerifyReceiptResponse, pause: Duration = .milliseconds(20)) {
        body = answer.jsonBody()
        self.pause = pause
    }

    var calls: Int { state.withLock { $0.calls } }
    var peak: Int { state.withLock { $0.peak } }

    func post(_ url: URL, body: [UInt8], timeout: Duration) async throws -> (status: Int, body: [UInt8]) {
        state.withLock { state in
            state.calls += 1
            state.now += 1
            state.peak = max(state.peak, state.now)
        }
        defer { state.withLock { $0.now -= 1 } }
        try await Task.sleep(for: pause)
        return (200, self.body)
    }
}
