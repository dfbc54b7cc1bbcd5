import ErrorCodes

/// Why the simulator refused a control action; the message says what to change.
public struct SimulatorError: Error, Sendable, CustomStringConvertible {
    /// What kind of refusal; codes can be added without breaking callers that switch on it.
    public typealias Code = ErrorCode<SimulatorError>

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// The HTTP status the control API answers with.
    public var httpStatus: Int {
        switch code {
        case .notFound: 404
        case .conflict: 409
        default: 400
        }
    }
}

extension ErrorCode<SimulatorError> {
    /// A field is missing or malformed (HTTP 400).
    public static var invalidArgument: Self { Self("invalid_argument") }
    /// No such transaction or subscription (HTTP 404).
    public static var notFound: Self { Self("not_found") }
    /// The action does not apply in the subscription's present state (HTTP 409).
    public static var conflict: Self { Self("conflict") }
}
