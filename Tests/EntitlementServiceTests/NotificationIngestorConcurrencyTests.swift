import EntitlementMemoryStore
import EntitlementPorts
@testable import EntitlementService
import Entitlements
import JWS
import ServiceRuntime
import Synchronization
import Testing

/// What the ``NotificationIngestor`` actor promises concurrent deliveries: one write per
/// notification in flight, its later arrivals answered from that write, and distinct
/// notifications never waiting on each other.
@Suite(.timeLimit(.minutes(2)))
struct NotificationIngestorConcurrencyTests {
    private static let id = "v2:11111111-2222-3333-4444-555555555555"

    private func ingestor(_ repository: HeldRepository,
                          _ notifications: AppleNotifications) throws -> NotificationIngestor {
        NotificationIngestor(
            configuration: .init(sharedSecret: nil, bundleID: AppleNotifications.bundleID),
            verifier: JWSVerifier(trustedRoots: try TrustedRoots(pem: notifications.authority.rootPEM)),
            repository: repository, logger: Logger(minimumLevel: .error, sink: { _ in }), now: Harness.clock)
    }

    private func renewal(_ notifications: AppleNotifications,
                         uuid: String = String(id.dropFirst(3))) throws -> [UInt8] {
        try notifications.v2(uuid, "DID_RENEW", transaction: AppleNotifications.subscription("t-\(uuid)", chain: "c"))
    }

    @Test func oneNotificationArrivingManyTimesAtOnceIsWrittenOnce() async throws {
        let notifications = try AppleNotifications()
        let repository = HeldRepository()
        let ingestor = try ingestor(repository, notifications)
        let body = try renewal(notifications)
        repository.hold()
        let arrivals = 8
        let dispositions = try await withThrowingTaskGroup(of: NotificationDisposition.self) { group in
            for _ in 0..<arrivals {
                group.addTask { await ingestor.ingest(body).disposition }
            }
            try await until("one write in the store, the other arrivals waiting on it") {
                await ingestor.waitingArrivals(of: Self.id) == arrivals - 1 && repository.heldApplies == 1
            }
            repository.release()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(dispositions.filter { $0 == .orphaned }.count == 1, "the first arrival's write: no owner yet")
        #expect(dispositions.filter { $0 == .duplicate }.count == arrivals - 1)
        #expect(repository.applies == 1)
        #expect(await ingestor.waitingArrivals(of: Self.id) == 0)
    }

    @Test func aFailedWriteIsEveryArrivalsFailureAndTheNextArrivalWritesAgain() async throws {
        let notifications = try AppleNotifications()
        let repository = HeldRepository()
        let ingestor = try ingestor(repository, notifications)
        let body = try renewal(notifications)
        repository.hold()
        repository.failNext()
        let first = Task { await ingestor.ingest(body).disposition }
        try await until("the first write reached the store") { repository.heldApplies == 1 }
        let later = (0..<3).map { _ in Task { await ingestor.ingest(body).disposition } }
        try await until("the later arrivals wait") { await ingestor.waitingArrivals(of: Self.id) == 3 }
        repository.release()
        #expect(await first.value == .retryLater)
        for arrival in later { #expect(await arrival.value == .retryLater, "Apple is asked to retry each") }
        #expect(await ingestor.ingest(body).disposition == .orphaned, "a failed write is not remembered")
        #expect(repository.applies == 2)
    }

    @Test func distinctNotificationsAreWrittenConcurrently() async throws {
        let notifications = try AppleNotifications()
        let repository = HeldRepository()
        let ingestor = try ingestor(repository, notifications)
        let uuids = ["aaaaaaaa-0000-0000-0000-000000000001", "aaaaaaaa-0000-0000-0000-000000000002",
                     "aaaaaaaa-0000-0000-0000-000000000003"]
        let bodies = try uuids.map { try renewal(notifications, uuid: $0) }
        repository.hold()
        let tasks = bodies.map { body in Task { await ingestor.ingest(body).disposition } }
        try await until("all three writes in the store at once") { repository.heldApplies == 3 }
        repository.release()
        for task in tasks { #expect(await task.value == .orphaned) }
    }
}

/// The in-memory store behind a gate: applies can be held until released, and the next one
/// can fail as storage does (disk full), so a test decides when and how a write ends.
private final class HeldRepository: EntitlementRepository {
    private struct State {
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
        var failNext = false
        var applies = 0
    }

    private let store = InMemoryEntitlementStore(clock: Harness.clock)
    private let state = Mutex(State())

    var heldApplies: Int { state.withLock { $0.held.count } }
    var applies: Int { state.withLock { $0.applies } }

    func hold() { state.withLock { $0.holding = true } }
    func failNext() { state.withLock { $0.failNext = true } }

    func release() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held.removeAll() }
            return state.held
        }
        for write in held { write.resume() }
    }

    func apply(_ notification: NotificationWrite) async throws -> NotificationOutcome {
        await withCheckedContinuation { continuation in
            let wait = state.withLock { state -> Bool in
                state.applies += 1
                guard state.holding else { return false }
                state.held.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
        let fail = state.withLock { state in
            defer { state.failNext = false }
            return state.failNext
        }
        if fail { throw StoreError(code: .storageFailure, message: "disk full") }
        return try await store.apply(notification)
    }

    func write(_ write: FactsWrite) async throws -> WriteOutcome { try await store.write(write) }
    func facts(userID: String) throws -> UserFacts { try store.facts(userID: userID) }
    func history(userID: String, productID: String?, pageSize: Int, pageToken: String?) throws -> HistoryPage {
        try store.history(userID: userID, productID: productID, pageSize: pageSize, pageToken: pageToken)
    }
}
