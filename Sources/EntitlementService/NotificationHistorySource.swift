import AppStoreServerAPI
import Entitlements

/// Where reconciliation reads Apple's notification history, one page at a time.
///
/// ``AppStoreServerClient`` is the production source (the App Store Server API's
/// `POST /inApps/v1/notifications/history`); tests script pages and failures behind this seam.
public protocol NotificationHistorySource: Sendable {
    /// One page of the signed payloads Apple sent (or tried to send) in `environment` between
    /// `startMs` and `endMs`; a nil `paginationToken` asks for the first page.
    func notificationHistoryPage(
        environment: Environment, startMs: Int64, endMs: Int64, paginationToken: String?,
        deadline: ContinuousClock.Instant?
    ) async throws -> NotificationHistoryPage
}

extension AppStoreServerClient: NotificationHistorySource {}
