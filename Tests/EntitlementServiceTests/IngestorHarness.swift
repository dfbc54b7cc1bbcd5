import EntitlementMemoryStore
import EntitlementPorts
@testable import EntitlementService
import Entitlements
import JWS
import ServiceRuntime
import Synchronization

/// A NotificationIngestor on the in-memory repository, with every answer's metric labels
/// recorded (the public `observe` hook): what the webhook edge would see.
final class IngestorHarness: Sendable {
    struct Labels: Sendable, Equatable {
        var version: String
        var type: String
        var outcome: String
    }

    let notifications: AppleNotifications
    let repository: any EntitlementRepository
    let ingestor: NotificationIngestor
    private let observed = LabelLog()

    init(repository: (any EntitlementRepository)? = nil, sharedSecret: String? = AppleNotifications.sharedSecret,
         transferPolicy: TransferPolicy = .transfer) throws {
        notifications = try AppleNotifications()
        let repository = repository ?? InMemoryEntitlementStore(transferPolicy: transferPolicy, clock: Harness.clock)
        self.repository = repository
        let verifier = JWSVerifier(trustedRoots: try TrustedRoots(pem: notifications.authority.rootPEM))
        let observed = self.observed
        ingestor = NotificationIngestor(
            configuration: .init(sharedSecret: sharedSecret, bundleID: AppleNotifications.bundleID),
            verifier: verifier, repository: repository, logger: Logger(minimumLevel: .error, sink: { _ in }),
            now: Harness.clock,
            observe: { version, type, outcome in
                observed.append(Labels(version: version, type: type, outcome: outcome))
            })
    }

    /// The labels of the last answer.
    var lastLabels: Labels? { observed.last }

    /// A receipt as the service writes one: binds `chain` (and its transactions) to `user`.
    func receipt(_ user: String, _ transactions: [Transaction], sourceID: String? = nil) async throws -> WriteOutcome {
        try await repository.write(FactsWrite(userID: user, transactions: transactions, source: .receipt,
                                              sourceID: sourceID))
    }

    func history(_ user: String) throws -> [HistoryEvent] {
        try repository.history(userID: user, productID: nil, pageSize: 0, pageToken: nil).events
    }
}

/// The metric labels of every answer, in order.
final class LabelLog: Sendable {
    private let labels = Mutex<[IngestorHarness.Labels]>([])

    func append(_ label: IngestorHarness.Labels) { labels.withLock { $0.append(label) } }
    var last: IngestorHarness.Labels? { labels.withLock { $0.last } }
}
