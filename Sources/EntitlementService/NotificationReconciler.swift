import AppStoreServerAPI
import EntitlementPorts
import Entitlements
import Foundation
import ServiceRuntime

/// Repairs missed notifications: asks Apple's notification history for what it sent since the
/// stored watermark and feeds every signed payload through the webhook's own ingest path.
///
/// A notification is missed when our endpoint was down, a deploy answered 5xx, Apple gave up
/// after its retries (~6.5 days), or sandbox (which never retries) hit a blip; without this,
/// a refunded user stays entitled. Each payload goes through ``NotificationIngestor/ingest(_:)``
/// exactly as a webhook body would (verified, deduplicated by notificationUUID, applied
/// order-independently), so a notification the webhook already stored is a duplicate and one
/// it missed is applied once. The window starts an overlap (1 h) before the watermark, since
/// Apple's history can show a notification a little after its signedDate; the first run looks
/// back 7 days. The watermark of an environment moves to the window's end only after every page
/// was fetched and every payload durably applied (the ingest call returns after the commit);
/// any failure leaves it where it was, so the next run asks again. Runs never overlap: the
/// ingestor actor holds the one "running" mark, beside the notifications it is applying.
public final class NotificationReconciler: Sendable {
    public struct Configuration: Sendable {
        /// How far before the watermark each window starts.
        public var overlapMs: Int64
        /// How far back the first run (no watermark yet) looks.
        public var firstLookbackMs: Int64
        public var environments: [Environment]

        public init(overlapMs: Int64 = 3_600_000, firstLookbackMs: Int64 = 7 * 86_400_000,
                    environments: [Environment] = [.production, .sandbox]) {
            self.overlapMs = overlapMs
            self.firstLookbackMs = firstLookbackMs
            self.environments = environments
        }
    }

    /// Apple keeps 180 days of history and refuses an older startDate (4000012); a window is
    /// clamped a day inside that.
    static let historyRetentionMs: Int64 = 179 * 86_400_000
    /// A server that never says hasMore=false stops here.
    static let maximumPages = 100_000

    let configuration: Configuration
    let source: any NotificationHistorySource
    let ingestor: NotificationIngestor
    let progress: any ReconciliationProgress
    let logger: Logger
    let now: UnixClock
    let observe: (@Sendable (ReconciliationReport) -> Void)?

    public init(configuration: Configuration = .init(), source: any NotificationHistorySource,
                ingestor: NotificationIngestor, progress: any ReconciliationProgress, logger: Logger,
                now: @escaping UnixClock, observe: (@Sendable (ReconciliationReport) -> Void)? = nil) {
        self.configuration = configuration
        self.source = source
        self.ingestor = ingestor
        self.progress = progress
        self.logger = logger
        self.now = now
        self.observe = observe
    }

    /// Runs once now, then every `interval`, until the task is cancelled. A run that finds
    /// another in progress (an on-demand one) is skipped, not queued.
    public func runPeriodically(every interval: Duration) async {
        while !Task.isCancelled {
            _ = try? await reconcile()
            try? await Task.sleep(for: interval)
        }
    }

    /// One run over every environment: from `sinceMs` when given (an operator's on-demand
    /// window), else from each environment's watermark minus the overlap, to now.
    public func reconcile(sinceMs: Int64? = nil) async throws(ReconciliationError) -> ReconciliationReport {
        guard await ingestor.beginReconciliation() else { throw .alreadyRunning }
        let report = await reconcileEveryEnvironment(sinceMs: sinceMs)
        await ingestor.endReconciliation()
        return report
    }

    /// The run itself; it cannot fail as a whole, so the run is always marked ended after it.
    private func reconcileEveryEnvironment(sinceMs: Int64?) async -> ReconciliationReport {
        let startedAt = now()
        var runs: [ReconciliationReport.EnvironmentRun] = []
        for environment in configuration.environments {
            runs.append(await reconcile(environment, sinceMs: sinceMs, endMs: startedAt))
        }
        let report = ReconciliationReport(startedAtMs: startedAt, finishedAtMs: now(), environments: runs)
        for run in runs {
            var fields = [("environment", run.environment.rawValue), ("found", String(run.found)),
                          ("applied", String(run.applied)), ("duplicate", String(run.duplicate)),
                          ("rejected", String(run.rejected)), ("pages", String(run.pages))]
            if let error = run.error {
                fields.append(("error", error))
                logger.warning("reconciliation did not complete; the watermark stays, the next run asks again",
                               fields)
            } else {
                logger.info("reconciled notification history", fields)
            }
        }
        observe?(report)
        return report
    }

    private func reconcile(
        _ environment: Environment, sinceMs: Int64?, endMs: Int64
    ) async -> ReconciliationReport.EnvironmentRun {
        var run = ReconciliationReport.EnvironmentRun(environment: environment, startMs: endMs, endMs: endMs)
        do {
            let start: Int64
            if let sinceMs {
                start = sinceMs
            } else if let watermark = try await progress.reconciledThrough(environment) {
                start = watermark - configuration.overlapMs
            } else {
                start = endMs - configuration.firstLookbackMs
            }
            run.startMs = min(max(start, endMs - Self.historyRetentionMs), endMs - 1)
            try await fetchAndApply(&run)
            try await progress.recordReconciled(environment, through: endMs)
            run.watermarkAdvanced = true
        } catch {
            run.error = Self.describe(error)
        }
        return run
    }

    /// Every page of the window, each payload applied before the next page is asked for.
    private func fetchAndApply(_ run: inout ReconciliationReport.EnvironmentRun) async throws {
        var token: String?
        repeat {
            guard run.pages < Self.maximumPages else {
                throw ReconciliationError(message: "Apple's notification history did not end after \(run.pages) pages")
            }
            let page = try await source.notificationHistoryPage(
                environment: run.environment, startMs: run.startMs, endMs: run.endMs, paginationToken: token,
                deadline: nil)
            run.pages += 1
            run.found += page.signedPayloads.count
            try await apply(page.signedPayloads, to: &run)
            guard page.hasMore else { return }
            guard let next = page.paginationToken, !next.isEmpty else {
                throw ReconciliationError(
                    message: "Apple's notification history said hasMore without a paginationToken")
            }
            token = next
        } while true
    }

    /// One page's payloads through the webhook's path, each wrapped as Apple posts it, all at
    /// once: the ingestor applies notifications order-independently (as it must for Apple's
    /// own redeliveries), so they verify in parallel and share the store's group commits. The
    /// page counts as applied only when every one of them returned (each after its commit).
    private func apply(_ signedPayloads: [String], to run: inout ReconciliationReport.EnvironmentRun) async throws {
        let ingestor = self.ingestor
        let results = await withTaskGroup(of: IngestedNotification.self) { group in
            for signedPayload in signedPayloads {
                group.addTask {
                    let body = try? JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload])
                    return await ingestor.ingest(body.map(Array.init) ?? [])
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        var unavailable = false
        for result in results {
            tally(result, into: &run, unavailable: &unavailable)
        }
        if unavailable { throw ReconciliationError(message: "the store cannot take notifications now; retry later") }
    }

    private func tally(
        _ result: IngestedNotification, into run: inout ReconciliationReport.EnvironmentRun, unavailable: inout Bool
    ) {
        switch result.disposition {
        case .accepted, .orphaned: run.applied += 1
        case .duplicate: run.duplicate += 1
        case .test: run.ignored += 1
        case .rejected(let rejection):
            run.rejected += 1
            logger.warning("reconciliation: Apple's history held a notification that does not verify; skipped",
                           [("notification_id", result.notificationID), ("reason", rejection.message)])
        case .retryLater, .failed:
            unavailable = true
        }
    }

    /// A message for the operator: Apple's answer (the client's safe message) or the store's.
    static func describe(_ error: any Error) -> String {
        if let error = error as? AppStoreServerAPI.ServerAPIError { return error.message }
        if let error = error as? ReconciliationError { return error.message }
        if let error = error as? StoreError { return error.message }
        return "\(error)"
    }
}
