import ErrorCodes
import Entitlements

/// Why a Server API call gave no answer, in words a caller can act on; the RPC edge maps each
/// code to one gRPC status (each code documents which).
public struct ServerAPIError: Error, Sendable, CustomStringConvertible {
    /// What Apple's answer (or its absence) means for the caller.
    public typealias Code = ErrorCode<ServerAPIError>

    public var code: Code
    /// Safe to show a caller: says what happened and what to do, never a URL or a token.
    public var message: String
    /// Apple's `errorCode`, when its body had one.
    public var appleErrorCode: Int?
    /// The full story for the server log (transport detail, Apple's errorMessage).
    public var detail: String

    public init(_ code: Code, _ message: String, appleErrorCode: Int? = nil, detail: String = "") {
        self.code = code
        self.message = message
        self.appleErrorCode = appleErrorCode
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? "\(code): \(message)" : "\(code): \(message) (\(detail))" }

    static func unauthorized(_ environment: Environment, errorCode: Int?) -> ServerAPIError {
        ServerAPIError(
            .unauthorized,
            "Apple's App Store Server API (\(environment.rawValue)) rejected the credentials: check the In-App "
                + "Purchase key, its key id, the issuer id and the bundle id; production answers 401 until the "
                + "app's first release on the App Store",
            appleErrorCode: errorCode)
    }
}

extension ErrorCode<ServerAPIError> {
    /// 401 (or 403): Apple refused the key, issuer id or bundle id. FAILED_PRECONDITION:
    /// only a configuration change helps.
    public static var unauthorized: Self { Self("unauthorized") }
    /// 404 in every environment asked (4040010, 4040005, ...). NOT_FOUND.
    public static var notFound: Self { Self("notFound") }
    /// 400: Apple says the request is wrong (a malformed transaction id). INVALID_ARGUMENT.
    public static var invalidRequest: Self { Self("invalidRequest") }
    /// 403 with Apple's errorCode: a business rule refused the request (a subscription that
    /// cannot be extended again). FAILED_PRECONDITION: the state, not the call, must change.
    public static var refused: Self { Self("refused") }
    /// 429, 5xx, Apple's retryable codes, timeouts, connection errors, after every retry the
    /// caller's deadline allowed. UNAVAILABLE: try again later.
    public static var unavailable: Self { Self("unavailable") }
    /// The bearer token could not be signed (OpenSSL failure). INTERNAL.
    public static var cryptoFailure: Self { Self("cryptoFailure") }
}
