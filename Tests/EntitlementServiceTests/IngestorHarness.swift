import EntitlementMemoryStore
import EntitlementPorts
@testable import EntitlementService
import Entitlements
import JWS
import ServiceRuntime
import Synchronization

/// A NotificationIngestor on the in-memory repository; every result's HTTP status and metric
/// labels are what the webhook edge (``NotificationWebhook``) makes of it.
final class IngestorHarness: Sendable {
    typealias Labels = NotificationWebhook.Labels

    let notifications: AppleNotifications
    let repository: any EntitlementRepository
    let verifier: JWSVerifier
    let ingestor: NotificationIngestor
    private let observed = LabelLog()

    init(repository: (any EntitlementRepository)? = nil, sharedSecret: String? = AppleNotifications.sharedSecret,
         transferPolicy: TransferPolicy = .transfer) throws {
        notifications = try AppleNotifications()
        let repository = repository ?? InMemoryEntitlementStore(transferPolicy: transferPolicy, clock: Harness.clock)
        self.repository = repository
        verifier = JWSVerifier(trustedRoots: try TrustedRoots(pem: notifications.authority.rootPEM))
        ingestor = NotificationIngestor(
            configuration: .init(sharedSecret: sharedSecret, bundleID: AppleNotifications.bundleID),
            verifier: verifier, repository: repository, logger: Logger(minimumLevel: .error, sink: { _ in }),
            now: Harness.clock)
    }

    /// Ingests one body; records the labels the webhook would count it under.
    func ingest(_ body: [UInt8]) async -> IngestedNotification {
        let result = await ingestor.ingest(body)
        observed.append(NotificationWebhook.labels(of: result))
        return result
    }

    /// The HTTP status Apple would see for `body`.
    func status(_ body: [UInt8]) async -> Int {
        NotificationWebhook.status(of: await ingest(body).disposition)
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
