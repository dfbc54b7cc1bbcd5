/// A gRPC status code. A struct, not an enum, so codes a newer peer sends still fit.
public struct RPCCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let ok = RPCCode(rawValue: 0)
    public static let cancelled = RPCCode(rawValue: 1)
    public static let unknown = RPCCode(rawValue: 2)
    public static let invalidArgument = RPCCode(rawValue: 3)
    public static let deadlineExceeded = RPCCode(rawValue: 4)
    public static let notFound = RPCCode(rawValue: 5)
    public static let alreadyExists = RPCCode(rawValue: 6)
    public static let permissionDenied = RPCCode(rawValue: 7)
    public static let resourceExhausted = RPCCode(rawValue: 8)
    public static let failedPrecondition = RPCCode(rawValue: 9)
    public static let aborted = RPCCode(rawValue: 10)
    public static let outOfRange = RPCCode(rawValue: 11)
    public static let unimplemented = RPCCode(rawValue: 12)
    public static let `internal` = RPCCode(rawValue: 13)
    public static let unavailable = RPCCode(rawValue: 14)
    public static let dataLoss = RPCCode(rawValue: 15)
    public static let unauthenticated = RPCCode(rawValue: 16)

    private static let names = [
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
        "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
        "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
        "UNAUTHENTICATED",
    ]

    public var description: String {
        RPCCode.names.indices.contains(rawValue) ? RPCCode.names[rawValue] : "CODE_\(rawValue)"
    }
}

/// The error a handler throws to end its call with a status other than OK.
///
/// `message` goes to the caller in grpc-message, so it must be safe to show and should say what
/// to do; `cause` stays on the server (logs) and never reaches the wire.
public struct RPCError: Error, Sendable, CustomStringConvertible {
    public var code: RPCCode
    public var message: String
    public var cause: (any Error & Sendable)?

    public init(_ code: RPCCode, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let cause { text += " (cause: \(cause))" }
        return text
    }
}
