import EntitlementPorts
import RPCCore

/// An RPC service registered beside the production ones, by an executable other than
/// `entitlementd` (today only `entitlementd-testing` adds one).
///
/// The production binary must not contain test-only services at all (a stray flag or
/// environment variable must not be able to switch one on), so they are linked into their own
/// executable and handed to ``DaemonMain/run(extraServices:)`` rather than selected by a flag.
public struct ExtraService: Sendable {
    /// The gRPC service name, logged at startup as a warning.
    public let name: String
    let register: @Sendable (any EntitlementRepository, inout RPCRouter) -> Void

    public init(name: String, register: @escaping @Sendable (any EntitlementRepository, inout RPCRouter) -> Void) {
        self.name = name
        self.register = register
    }
}
