import AppStore
@testable import EntitlementService
import Entitlements
import Foundation
import JWS
import RPCCore
import Testing
import TestSupport

/// The verifier's decisions against a scripted Apple: which endpoint it asks, how often, how
/// long it backs off, and what each of Apple's answers becomes.
struct ReceiptVerifierTests {
    private let receipt = "cmVjZWlwdA=="

    /// The verification failure `body` throws (the RPC edge's status for it is `.rpcError`).
    private func failure(_ body: () async throws -> Void) async -> ReceiptVerificationError? {
        do {
            try await body()
            Issue.record("expected a ReceiptVerificationError, nothing was thrown")
        } catch let error as ReceiptVerificationError {
            return error
        } catch {
            Issue.record("expected a ReceiptVerificationError, got \(error)")
        }
        return nil
    }

    @Test func aValidProductionReceiptTakesOneCall() async throws {
        let apple = ScriptedApple([.verifyReceipt(Harness.validReceipt())])
        let verified = try await Harness.verifier(apple).verify(receiptData: receipt)
        #expect(apple.environments == [.production])
        #expect(verified.environment == .production)
        #expect(verified.transactions.map(\.transactionID) == ["1000"])
        let request = try #require(apple.calls.first).body
        #expect(request == VerifyReceiptRequest(receiptData: receipt, password: "shared-secret").jsonBody(),
                "the receipt and shared secret, as Apple expects them")
    }

    @Test func status21007SwitchesToSandboxWithTheSameRequest() async throws {
        let apple = ScriptedApple([.status(21007), .verifyReceipt(Harness.validReceipt(environment: .sandbox))])
        let verified = try await Harness.verifier(apple).verify(receiptData: receipt)
        #expect(apple.environments == [.production, .sandbox])
        #expect(apple.calls.map(\.body)[0] == apple.calls.map(\.body)[1])
        #expect(verified.environment == .sandbox)
    }

    @Test func status21008AfterTheSwitchIsNotFollowedBack() async throws {
        let apple = ScriptedApple([.status(21007), .status(21008)])
        let error = await failure { _ = try await Harness.verifier(apple).verify(receiptData: receipt) }
        #expect(apple.environments == [.production, .sandbox], "one switch only: no ping-pong")
        guard case .environmentLoop(status: 21008) = error else {
            Issue.record("expected environmentLoop(21008), got \(String(describing: error))")
            return
        }
        #expect(error?.rpcError.code == .unavailable)
    }

    @Test func status21002IsRetriedTwiceAtTheSameEndpointAndNeverFallsBack() async throws {
        let apple = ScriptedApple([.status(21002), .status(21002), .status(21002)])
        let sleeps = Harness.Sleeps()
        let error = await failure {
            _ = try await Harness.verifier(apple, sleeps: sleeps).verify(receiptData: receipt)
        }
        #expect(apple.environments == [.production, .production, .production], "1 try + 2 retries, never sandbox")
        #expect(error?.rpcError.code == .invalidArgument)
        #expect(sleeps.durations.count == 2, "a backoff before each retry")

        let recovers = ScriptedApple([.status(21002), .verifyReceipt(Harness.validReceipt())])
        let verified = try await Harness.verifier(recovers).verify(receiptData: receipt)
        #expect(recovers.environments == [.production, .production])
        #expect(verified.transactions.count == 1, "a passing 21002 is Apple's, not the receipt's")
    }

    @Test func retryableFailuresAreRetriedUpToMaxAttemptsThenUnavailable() async throws {
        let apple = ScriptedApple([.status(21005), .http(503), .transportError, .status(21199, isRetryable: true)])
        let error = await failure { _ = try await Harness.verifier(apple).verify(receiptData: receipt) }
        #expect(apple.calls.count == 4)
        #expect(error?.rpcError.code == .unavailable)

        let recovers = ScriptedApple([.transportError, .status(21009), .verifyReceipt(Harness.validReceipt())])
        let verified = try await Harness.verifier(recovers).verify(receiptData: receipt)
        #expect(recovers.calls.count == 3)
        #expect(verified.appleStatus == 0)
    }

    @Test func backoffGrowsExponentiallyAndStaysUnderItsCeiling() async throws {
        let apple = ScriptedApple(Array(repeating: .status(21005), count: 8))
        let sleeps = Harness.Sleeps()
        let configuration = Harness.verifierConfiguration(
            maxAttempts: 8, initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(250))
        _ = await failure {
            _ = try await Harness.verifier(apple, configuration, sleeps: sleeps).verify(receiptData: receipt)
        }
        #expect(apple.calls.count == 8)
        // Full jitter: each wait is random below min(initial * 2^(n-1), max).
        let ceilings: [Duration] = [.milliseconds(100), .milliseconds(200)]
            + Array(repeating: .milliseconds(250), count: 5)
        #expect(sleeps.durations.count == ceilings.count, "one backoff between attempts, none after the last")
        for (waited, ceiling) in zip(sleeps.durations, ceilings) {
            #expect(waited >= .zero && waited <= ceiling, "waited \(waited), ceiling \(ceiling)")
        }
    }

    @Test(arguments: [
        (21000, RPCCode.invalidArgument), (21003, .invalidArgument), (21004, .failedPrecondition),
        (21010, .notFound), (21199, .unavailable), (12345, .unavailable),
    ])
    func finalStatusesAnswerAtOnce(status: Int, code: RPCCode) async throws {
        let apple = ScriptedApple([.status(status)])
        let error = await failure { _ = try await Harness.verifier(apple).verify(receiptData: receipt) }
        #expect(apple.calls.count == 1, "status \(status) is not retried")
        #expect(error?.rpcError.code == code)
    }

    @Test func aReceiptForAnotherBundleIsRefused() async throws {
        let apple = ScriptedApple([.verifyReceipt(Harness.validReceipt(bundleID: "com.other.app"))])
        let verifier = Harness.verifier(apple, Harness.verifierConfiguration(bundleID: "com.example.app"))
        let error = await failure { _ = try await verifier.verify(receiptData: receipt) }
        guard case .otherBundle(found: "com.other.app", expected: "com.example.app") = error else {
            Issue.record("expected otherBundle, got \(String(describing: error))")
            return
        }
    }

    @Test func identicalReceiptsInFlightShareOneCall() async throws {
        let apple = ScriptedApple([.verifyReceipt(Harness.validReceipt()), .verifyReceipt(Harness.validReceipt())])
        let verifier = Harness.verifier(apple)
        apple.hold()
        let callers = 20
        try await withThrowingTaskGroup(of: VerifiedReceipt.self) { group in
            for _ in 0..<callers {
                group.addTask { try await verifier.verify(receiptData: receipt) }
            }
            try await until("every caller joined the one flight") {
                await verifier.callers(for: SHA256.hexHash(receipt.utf8)) == callers && apple.heldCalls == 1
            }
            apple.release()
            var answered = 0
            for try await verified in group {
                #expect(verified.transactions.map(\.transactionID) == ["1000"])
                answered += 1
            }
            #expect(answered == callers)
        }
        #expect(apple.calls.count == 1, "one call to Apple for \(callers) identical receipts")

        // Once answered, the next submission of the same receipt asks Apple again.
        _ = try await verifier.verify(receiptData: receipt)
        #expect(apple.calls.count == 2)
    }

    @Test func aCallerThatGivesUpLeavesTheOthersTheirAnswer() async throws {
        let apple = ScriptedApple([.verifyReceipt(Harness.validReceipt())])
        let verifier = Harness.verifier(apple)
        apple.hold()
        let leaving = Task { try await verifier.verify(receiptData: receipt) }
        let staying = Task { try await verifier.verify(receiptData: receipt) }
        try await until("both callers joined") { await verifier.callers(for: SHA256.hexHash(receipt.utf8)) == 2 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        apple.release()
        let verified = try await staying.value
        #expect(verified.transactions.count == 1)
        #expect(apple.calls.count == 1)
    }

    @Test func differentReceiptsAreNotShared() async throws {
        let apple = ScriptedApple([.verifyReceipt(Harness.validReceipt(chain: "1")),
                                   .verifyReceipt(Harness.validReceipt(chain: "2"))])
        let verifier = Harness.verifier(apple)
        apple.hold()
        async let first = verifier.verify(receiptData: "QUFBQQ==")
        async let second = verifier.verify(receiptData: "QkJCQg==")
        try await eventually("both receipts reached Apple") { apple.heldCalls == 2 }
        apple.release()
        let ids = try await Set([first, second].flatMap { $0.transactions.map(\.transactionID) })
        #expect(ids == ["1", "2"])
        #expect(apple.calls.count == 2)
    }
}
