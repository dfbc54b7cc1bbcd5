import Entitlements

/// What one reconciliation run found in Apple's notification history and what became of it.
public struct ReconciliationReport: Sendable, Equatable {
    /// One environment's window and tally.
    public struct EnvironmentRun: Sendable, Equatable {
        public var environment: Environment
        /// The window asked: `startMs..<endMs` (Unix ms).
        public var startMs: Int64
        public var endMs: Int64
        public var pages = 0
        /// Signed payloads Apple returned.
        public var found = 0
        /// Stored now (including for chains no user owns yet).
        public var applied = 0
        /// Applied before (the webhook, or an earlier run, got them): nothing changed.
        public var duplicate = 0
        /// Never valid (signature, bundle, shape): counted and logged, never stored.
        public var rejected = 0
        /// Authentic but nothing to store (TEST notifications).
        public var ignored = 0
        /// Why the run of this environment stopped early; nil when it completed.
        public var error: String?
        /// The watermark moved to `endMs` (only after a complete, durable run).
        public var watermarkAdvanced = false

        public init(environment: Environment, startMs: Int64, endMs: Int64) {
            self.environment = environment
            self.startMs = startMs
            self.endMs = endMs
        }
    }

    public var startedAtMs: Int64
    public var finishedAtMs: Int64
    public var environments: [EnvironmentRun]

    public init(startedAtMs: Int64, finishedAtMs: Int64, environments: [EnvironmentRun]) {
        self.startedAtMs = startedAtMs
        self.finishedAtMs = finishedAtMs
        self.environments = environments
    }

    /// Every environment completed and its watermark advanced.
    public var succeeded: Bool { environments.allSatisfy { $0.error == nil } }

    public var found: Int { environments.reduce(0) { $0 + $1.found } }
    public var applied: Int { environments.reduce(0) { $0 + $1.applied } }
    public var duplicate: Int { environments.reduce(0) { $0 + $1.duplicate } }
    public var rejected: Int { environments.reduce(0) { $0 + $1.rejected } }
    public var ignored: Int { environments.reduce(0) { $0 + $1.ignored } }
}

/// Why a reconciliation could not start.
public struct ReconciliationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    /// Another run (periodic or on demand) is in progress; runs never overlap.
    public static let alreadyRunning = ReconciliationError(
        message: "a reconciliation is already running; try again when it ends")

    public var description: String { message }
}
