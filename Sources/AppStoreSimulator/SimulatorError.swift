/// Why the simulator refused a control action; the message says what to change.
public struct SimulatorError: Error, Sendable, CustomStringConvertible {
    /// What kind of refusal; a struct over a private enum so codes can be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Wrapped: String, Sendable, Hashable {
            case invalidArgument = "invalid_argument"
            case notFound = "not_found"
            case conflict
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A field is missing or malformed (HTTP 400).
        public static let invalidArgument = Code(.invalidArgument)
        /// No such transaction or subscription (HTTP 404).
        public static let notFound = Code(.notFound)
        /// The action does not apply in the subscription's present state (HTTP 409).
        public static let conflict = Code(.conflict)

        public var description: String { wrapped.rawValue }
    }

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
