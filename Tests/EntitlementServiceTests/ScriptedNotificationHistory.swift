import AppStoreServerAPI
@testable import EntitlementService
import Entitlements
import Foundation
import ServiceRuntime
import Synchronization

/// Apple's notification history, scripted: per environment, the signed payloads it holds,
/// served `pageSize` at a time; failures to throw first; every request recorded.
final class ScriptedNotificationHistory: NotificationHistorySource {
    struct Request: Equatable {
        var environment: Environment
        var startMs: Int64
        var endMs: Int64
        var paginationToken: String?
    }

    private struct State {
        var payloads: [Environment: [String]] = [:]
        /// By environment, then by the number of the request (1 = its first) to fail.
        var failures: [Environment: [Int: any Error]] = [:]
        var requests: [Request] = []
    }

    let pageSize: Int
    /// Opened before every request is answered when set: a test holds a run in flight with it.
    let gate: Latch?
    private let state = Mutex(State())

    init(pageSize: Int = 2, gate: Latch? = nil) {
        self.pageSize = pageSize
        self.gate = gate
    }

    /// Apple holds this notification (a webhook body's signedPayload) in `environment`.
    func hold(_ body: [UInt8], in environment: Environment = .sandbox) {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: String]
        state.withLock { $0.payloads[environment, default: []].append(object?["signedPayload"] ?? "") }
    }

    /// The `request`th request for `environment` (1 = the first) throws `error`.
    func fail(_ environment: Environment, request: Int, with error: any Error) {
        state.withLock { $0.failures[environment, default: [:]][request] = error }
    }

    var requests: [Request] { state.withLock { $0.requests } }

    func notificationHistoryPage(
        environment: Environment, startMs: Int64, endMs: Int64, paginationToken: String?,
        deadline: ContinuousClock.Instant?
    ) async throws -> NotificationHistoryPage {
        let (failure, payloads) = state.withLock { state -> ((any Error)?, [String]) in
            state.requests.append(Request(environment: environment, startMs: startMs, endMs: endMs,
                                          paginationToken: paginationToken))
            let number = state.requests.filter { $0.environment == environment }.count
            return (state.failures[environment]?[number], state.payloads[environment] ?? [])
        }
        if let gate { await gate.wait() }
        if let failure { throw failure }
        let offset = Int(paginationToken ?? "0") ?? 0
        let page = Array(payloads.dropFirst(offset).prefix(pageSize))
        let next = offset + page.count
        let hasMore = next < payloads.count
        return NotificationHistoryPage(signedPayloads: page, paginationToken: hasMore ? String(next) : nil,
                                       hasMore: hasMore)
    }
}
