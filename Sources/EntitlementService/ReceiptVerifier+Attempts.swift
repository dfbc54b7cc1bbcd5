import AppStore
import Entitlements
import Foundation
import ServiceRuntime

extension ReceiptVerifier {
    /// One verification: walks production -> sandbox (or back) and retries as the status
    /// demands. Runs once per distinct receipt even when many callers wait on it. Fails with a
    /// ``ReceiptVerificationError`` (or cancellation). Nonisolated: it awaits Apple and decodes
    /// JSON, which must not hold the actor.
    nonisolated func verifyOnce(receiptData: String) async throws -> VerifiedReceipt {
        let body = VerifyReceiptRequest(receiptData: receiptData, password: configuration.sharedSecret).jsonBody()
        var environment = Environment.production
        var switchedEnvironment = false
        var failures = 0
        var malformedLeft = configuration.malformedRetries
        while true {
            let url = environment == .production ? configuration.productionURL : configuration.sandboxURL
            let outcome = try await attempt(url: url, body: body, environment: environment)
            switch outcome {
            case .failure(let failure):
                failures += 1
                guard failures < configuration.maxAttempts else {
                    throw ReceiptVerificationError.appleUnreachable(failure, attempts: failures)
                }
                try await backoff(failures)
            case .response(let response):
                switch VerifyReceiptStatus.classify(status: response.status, isRetryable: response.isRetryable) {
                case .ok:
                    return VerifiedReceipt(
                        environment: response.environment ?? environment, appleStatus: response.status,
                        transactions: response.transactions, renewalInfos: response.renewalInfos,
                        bundleID: response.bundleID)
                case .retryAtSandbox, .retryAtProduction:
                    guard !switchedEnvironment else {
                        throw ReceiptVerificationError.environmentLoop(status: response.status)
                    }
                    switchedEnvironment = true
                    environment = environment == .production ? .sandbox : .production
                case .retryThenInvalidArgument:
                    guard malformedLeft > 0 else {
                        throw ReceiptVerificationError.unreadableReceipt
                    }
                    malformedLeft -= 1
                    try await backoff(configuration.malformedRetries - malformedLeft)
                case .invalidArgument:
                    throw ReceiptVerificationError.invalidReceipt(status: response.status)
                case .sharedSecretMismatch:
                    throw ReceiptVerificationError.sharedSecretMismatch
                case .accountNotFound:
                    throw ReceiptVerificationError.accountNotFound
                case .retryable:
                    failures += 1
                    guard failures < configuration.maxAttempts else {
                        throw ReceiptVerificationError.appleBusy(status: response.status, attempts: failures)
                    }
                    try await backoff(failures)
                case .unavailable(let status):
                    throw ReceiptVerificationError.appleUnavailable(status: status)
                }
            }
        }
    }

    enum AttemptOutcome: Sendable {
        case response(VerifyReceiptResponse)
        case failure(AppleAttemptFailure)
    }

    /// One POST under a concurrency permit. HTTP 5xx, timeouts and connection errors are
    /// transport failures (retryable); an unreadable 200 body is too, since Apple does not
    /// send them on purpose.
    nonisolated func attempt(url: URL, body: [UInt8], environment: Environment) async throws -> AttemptOutcome {
        try await withPermit { try await observedPost(url: url, body: body, environment: environment) }
    }

    private nonisolated func observedPost(url: URL, body: [UInt8],
                                          environment: Environment) async throws -> AttemptOutcome {
        try Task.checkCancellation()
        let started = ContinuousClock.now
        let outcome = try await post(url: url, body: body)
        if let observe {
            let elapsed = ContinuousClock.now - started
            let observed: AppleCallOutcome
            switch outcome {
            case .response(let response): observed = .status(response.status)
            case .failure(let failure): observed = .failure(failure)
            }
            observe(environment, observed, elapsed.inSeconds)
        }
        return outcome
    }

    private nonisolated func post(url: URL, body: [UInt8]) async throws -> AttemptOutcome {
        let status: Int
        let responseBody: [UInt8]
        do {
            (status, responseBody) = try await client.post(url, body: body, timeout: configuration.requestTimeout)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            return .failure(.transport(error as? AppleTransportError
                                       ?? AppleTransportError(reason: "network error", detail: "\(error)")))
        }
        guard status == 200 else { return .failure(.httpStatus(status)) }
        do {
            return .response(try VerifyReceiptResponse.parse(responseBody, observedAtMs: now()))
        } catch {
            return .failure(.unreadableBody(error))
        }
    }

    /// Exponential backoff with full jitter, so a burst of failures does not retry in lockstep.
    nonisolated func backoff(_ failures: Int) async throws {
        let base = configuration.initialBackoff * (1 << min(failures - 1, 16))
        let ceiling = min(base, configuration.maxBackoff)
        let ceilingMs = ceiling.inFractionalMilliseconds
        try await sleep(.milliseconds(Int64(Double.random(in: 0...max(1, ceilingMs)))))
    }
}
