/// Why one call to Apple's verifyReceipt gave no usable answer; such failures are retried.
///
/// Two audiences: ``reason`` is what a caller reads in the UNAVAILABLE message once retries run
/// out (a few words, never Foundation's error dump or a configured URL); ``description`` is the
/// whole story for the server log, where the RPC layer writes an ``RPCError``'s cause.
public enum AppleAttemptFailure: Error, Sendable, CustomStringConvertible {
    /// No HTTP answer at all (refused, timed out, TLS, DNS).
    case transport(AppleTransportError)
    /// An HTTP status other than 200 (Apple's 5xx during outages).
    case httpStatus(Int)
    /// A 200 whose body is not a verifyReceipt response; Apple does not send those on purpose.
    case unreadableBody(any Error & Sendable)

    var reason: String {
        switch self {
        case .transport(let error): return error.reason
        case .httpStatus(let status): return "HTTP \(status)"
        case .unreadableBody: return "unreadable response"
        }
    }

    public var description: String {
        switch self {
        case .transport(let error): return "\(error)"
        case .httpStatus(let status): return "HTTP \(status)"
        case .unreadableBody(let error): return "unreadable response: \(error)"
        }
    }

    /// The caller's message once `attempts` attempts have failed and this was the last.
    func exhaustedMessage(attempts: Int) -> String {
        switch self {
        case .transport(let error):
            return "Apple's verifyReceipt endpoint could not be reached after \(attempts) attempts "
                + "(\(error.reason)); retry later"
        case .httpStatus, .unreadableBody:
            return "Apple's verifyReceipt endpoint failed \(attempts) attempts (last: \(reason)); retry later"
        }
    }
}
