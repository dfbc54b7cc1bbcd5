import Entitlements
import Foundation
import JWS

extension AppStoreServerClient {
    /// What one environment said about a request.
    enum Answer<Value> {
        case value(Value)
        /// 404 with 4040010/4040005: unknown in this environment.
        case otherEnvironment(errorCode: Int?)

        /// The value, or NOT_FOUND where the one environment asked does not know the thing:
        /// `unknown` finishes the sentence "Apple's App Store Server API (Sandbox) …".
        func value(in environment: Environment, orNotFound unknown: String) throws -> Value {
            guard case .value(let value) = self else {
                throw ServerAPIError(.notFound, "Apple's App Store Server API (\(environment.rawValue)) \(unknown)")
            }
            return value
        }
    }

    /// One request to one environment, retried as ``ServerAPIVerdict`` says until it succeeds,
    /// fails for good, runs out of attempts, or the next wait would pass `deadline`.
    /// `read` turns a 200 body into a value; a body it cannot read is retried like a 5xx.
    func request<Value>(_ endpoint: Endpoint, environment: Environment, method: String, path: String,
                        query: [URLQueryItem] = [], body: [UInt8]? = nil, deadline: ContinuousClock.Instant,
                        read: ([UInt8]) throws -> Value) async throws -> Answer<Value> {
        var components = URLComponents(url: baseURL(environment).appendingPathComponent(path),
                                       resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query }
        let url = components.url!
        var failures = 0
        while true {
            try Task.checkCancellation()
            try await waitForRate(deadline: deadline, environment: environment)
            let token: String
            do {
                token = try await access.token(nowMs: now())
            } catch {
                throw ServerAPIError(.cryptoFailure, "the App Store Server API token could not be signed",
                                     detail: "\(error)")
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw Self.deadlinePassed(environment) }
            var headers = [(name: "Authorization", value: "Bearer " + token)]
            if body != nil { headers.append((name: "Content-Type", value: "application/json")) }
            let started = ContinuousClock.now
            let verdict: ServerAPIVerdict
            var failure: String
            var retryAfter: String?
            do {
                let response = try await transport.send(
                    ServerAPIHTTPRequest(method: method, url: url, headers: headers, body: body),
                    timeout: min(configuration.requestTimeout, remaining))
                observe?(endpoint, environment, response.status, (ContinuousClock.now - started).inSeconds)
                let apple = response.status == 200 ? (code: nil, message: nil) : ServerAPIBody.error(response.body)
                retryAfter = response.retryAfter
                failure = "HTTP \(response.status)" + (apple.code.map { " errorCode \($0)" } ?? "")
                switch ServerAPIVerdict.classify(status: response.status, errorCode: apple.code) {
                case .success:
                    do {
                        return .value(try read(response.body))
                    } catch {
                        failure = "unreadable response (\(error))"
                        verdict = .retry
                    }
                case .tryOtherEnvironment:
                    return .otherEnvironment(errorCode: apple.code)
                case .unauthorized:
                    await access.refused(token)
                    throw ServerAPIError.unauthorized(environment, errorCode: apple.code)
                case .notFound:
                    throw ServerAPIError(.notFound, "Apple's App Store Server API (\(environment.rawValue)) "
                                         + "found nothing for this request", appleErrorCode: apple.code,
                                         detail: apple.message ?? "")
                case .invalidRequest:
                    throw ServerAPIError(.invalidRequest, "Apple's App Store Server API rejected the request ("
                                         + failure + (apple.message.map { ": \($0)" } ?? "") + ")",
                                         appleErrorCode: apple.code)
                case .refused:
                    throw ServerAPIError(.refused, "Apple's App Store Server API refused the request ("
                                         + failure + (apple.message.map { ": \($0)" } ?? "") + ")",
                                         appleErrorCode: apple.code)
                case let other:
                    verdict = other
                }
            } catch let error as ServerAPITransportError {
                if Task.isCancelled { throw CancellationError() }
                observe?(endpoint, environment, 0, (ContinuousClock.now - started).inSeconds)
                failure = error.reason
                verdict = .retry
            } catch let error as ServerAPIError {
                throw error
            } catch {
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
                observe?(endpoint, environment, 0, (ContinuousClock.now - started).inSeconds)
                failure = "network error"
                verdict = .retry
            }
            failures += 1
            guard failures < configuration.maxAttempts else {
                throw ServerAPIError(.unavailable, "Apple's App Store Server API (\(environment.rawValue)) failed "
                                     + "\(failures) attempts (last: \(failure)); retry later")
            }
            let backoff = backoffDelay(failures: failures, initial: configuration.initialBackoff,
                                       maximum: configuration.maxBackoff, unit: jitter())
            let delay = verdict == .rateLimited ? retryAfterDelay(retryAfter, nowMs: now()) ?? backoff : backoff
            guard ContinuousClock.now.advanced(by: delay) < deadline else {
                let why = verdict == .rateLimited
                    ? "is rate limiting this app (HTTP 429) past this call's deadline"
                    : "failed (\(failure)) and the next retry would pass this call's deadline"
                throw ServerAPIError(.unavailable, "Apple's App Store Server API (\(environment.rawValue)) \(why); "
                                     + "retry later")
            }
            try await sleep(delay)
        }
    }

    /// Takes a token from the bucket, waiting if the configured rate demands, unless the wait
    /// would pass the deadline (then the token is returned and the call fails UNAVAILABLE).
    func waitForRate(deadline: ContinuousClock.Instant, environment: Environment) async throws {
        let wait = await access.reserveRequest()
        guard wait > .zero else { return }
        guard ContinuousClock.now.advanced(by: wait) < deadline else {
            await access.cancelReservation()
            throw ServerAPIError(.unavailable, "the App Store Server API request rate (--app-store-api-rate) is "
                                 + "used up until past this call's deadline; retry later")
        }
        try await Task.sleep(for: wait)
    }

    static func deadlinePassed(_ environment: Environment) -> ServerAPIError {
        ServerAPIError(.unavailable, "this call's deadline passed before Apple's App Store Server API "
                       + "(\(environment.rawValue)) answered; retry later")
    }

    /// Production first (or `first`), then the other environment when the first says 4040010
    /// or 4040005; NOT_FOUND when neither knows `what`.
    func inEitherEnvironment<Value>(
        first: Environment?, what: String,
        _ call: (Environment) async throws -> Answer<Value>
    ) async throws -> (environment: Environment, value: Value) {
        let start = first ?? .production
        var codes: [Int] = []
        for environment in [start, start == .production ? .sandbox : .production] {
            switch try await call(environment) {
            case .value(let value): return (environment, value)
            case .otherEnvironment(let code): codes.append(code ?? 0)
            }
        }
        throw ServerAPIError(.notFound, "\(what) was found in neither the production nor the sandbox App Store "
                             + "(Apple errorCode \(codes.map(String.init).joined(separator: ", ")))",
                             appleErrorCode: codes.last)
    }
}
