import Foundation

/// What to do with one Server API answer: Apple's status codes and `errorCode`s as decisions.
/// Pure, so the table in the tests is the whole policy.
public enum ServerAPIVerdict: Sendable, Equatable {
    /// 200 (202 for a consumption answer; any 2xx Apple sends): read the body.
    case success
    /// 404 with 4040010 / 4040005: the id is unknown here; ask the other environment.
    case tryOtherEnvironment
    /// 5xx, Apple's retryable codes (4040002, 4040004, 4040006, 5000001) and other
    /// passing trouble: back off (with jitter) and try again.
    case retry
    /// 429: wait until Retry-After (or back off when it is missing), then try again.
    case rateLimited
    /// 401/403: credentials refused; retrying cannot help.
    case unauthorized
    /// 403 with one of Apple's business-rule codes (4030004 a subscription that cannot be
    /// extended, 4030005 its extensions used up, ...): the request was understood and refused.
    case refused
    /// Any other 404: nothing to find, in either environment.
    case notFound
    /// 400 and other 4xx: the request itself is wrong.
    case invalidRequest

    /// Apple's codes that mean "a passing problem on our side, try again".
    public static let retryableErrorCodes: Set<Int> = [4040002, 4040004, 4040006, 5000001]
    /// Apple's codes that mean "not in this environment".
    public static let otherEnvironmentErrorCodes: Set<Int> = [4040010, 4040005]

    public static func classify(status: Int, errorCode: Int?) -> ServerAPIVerdict {
        if let errorCode, retryableErrorCodes.contains(errorCode) { return .retry }
        switch status {
        case 200...206: return .success
        case 403 where errorCode != nil: return .refused
        case 401, 403: return .unauthorized
        case 404:
            if let errorCode, otherEnvironmentErrorCodes.contains(errorCode) { return .tryOtherEnvironment }
            return .notFound
        case 429: return .rateLimited
        case 408, 500...599: return .retry
        case 400...499: return .invalidRequest
        // A 1xx/3xx/other status from something between us and Apple: passing, hopefully.
        default: return .retry
        }
    }
}

/// How long to wait before retry number `failures` (1-based): exponential from `initial`,
/// capped at `maximum`, with "full jitter" (a uniform draw in [0, ceiling]) so a burst of
/// failed callers does not come back in lockstep. `unit` is the draw in [0, 1].
public func backoffDelay(failures: Int, initial: Duration, maximum: Duration, unit: Double) -> Duration {
    let base = initial * (1 << min(max(failures - 1, 0), 16))
    let ceiling = min(base, maximum)
    return ceiling * min(max(unit, 0), 1)
}

/// How long a 429's `Retry-After` (Apple: milliseconds since the Unix epoch) asks us to wait
/// from `nowMs`; nil when the header is missing or unreadable. Delta-seconds (RFC 9110) are
/// accepted too, in case a proxy rewrites it: a value under 10^9 cannot be an epoch in ms.
public func retryAfterDelay(_ header: String?, nowMs: Int64) -> Duration? {
    guard let header, let value = Int64(header.trimmingCharacters(in: .whitespaces)), value >= 0 else { return nil }
    if value < 1_000_000_000 { return .seconds(value) }
    return .milliseconds(max(0, value - nowMs))
}
