import HTTPCore
import ServiceRuntime

/// `POST /apple/notifications`: hands the body to the ingestor on a task (never on the loop
/// thread) and answers once the notification is durably applied, duplicate, or refused.
///
/// The one place a notification's fate becomes HTTP (``answer(to:)``) and metric labels
/// (``labels(of:)``); the ingestor decides in domain words only.
public struct NotificationWebhook: Sendable {
    /// Told about every ingested body, with its ``Labels``.
    public typealias Observer = @Sendable (_ labels: Labels) -> Void

    /// The labels of `entitlementd_notifications_total`; only ``labels(of:)`` makes them, so the
    /// memberwise initialiser stays internal.
    public struct Labels: Sendable, Equatable {
        /// `v1`, `v2` or `unknown`.
        public var version: String
        /// Apple's notification type, or `unverified` before authentication, so strangers cannot
        /// grow metric labels.
        public var type: String
        /// `applied`, `orphan`, `duplicate`, `test`, `rejected` or `failed`.
        public var outcome: String
    }

    let ingestor: NotificationIngestor
    let logger: Logger
    let observe: Observer?

    public init(ingestor: NotificationIngestor, logger: Logger, observe: Observer? = nil) {
        self.ingestor = ingestor
        self.logger = logger
        self.observe = observe
    }

    public func register(into router: inout HTTPRouter) {
        let webhook = self
        router.add("POST", "/apple/notifications") { request, writer in
            if request.bodyLimitExceeded {
                writer.respond(.text(413, "notification body too large\n"))
                return
            }
            let task = Task {
                writer.respond(await webhook.handle(request.body))
            }
            writer.onCancel { task.cancel() }
        }
    }

    /// Ingests one body, records and logs the result, and answers it.
    func handle(_ body: [UInt8]) async -> HTTPResponse {
        let result = await ingestor.ingest(body)
        observe?(NotificationWebhook.labels(of: result))
        let status = NotificationWebhook.status(of: result.disposition)
        let level: Logger.Level = status >= 500 ? .error : status >= 400 ? .warning : .info
        logger.log(level, "apple notification", [("notification_id", result.notificationID), ("status", String(status)),
                                                 ("reason", result.disposition.summary)])
        return NotificationWebhook.answer(to: result.disposition)
    }
}

extension NotificationWebhook {
    /// Apple retries anything but 200: 4xx says "never valid", 5xx "try again later".
    static func status(of disposition: NotificationDisposition) -> Int {
        switch disposition {
        case .accepted, .orphaned, .duplicate, .test: return 200
        case .rejected(let rejection):
            switch rejection.reason {
            case .tooLarge: return 413
            case .malformed, .unstorable: return 400
            case .unauthenticated: return 401
            case .otherBundle: return 403
            }
        case .retryLater: return 503
        case .failed: return 500
        }
    }

    /// The answer's body: `ok` when accepted, else the reason (safe: format errors never quote
    /// values, store causes stay in the log).
    static func answer(to disposition: NotificationDisposition) -> HTTPResponse {
        let status = status(of: disposition)
        return .text(status, status == 200 ? "ok\n" : disposition.summary + "\n")
    }

    static func labels(of result: IngestedNotification) -> Labels {
        let outcome: String
        switch result.disposition {
        case .accepted: outcome = "applied"
        case .orphaned: outcome = "orphan"
        case .duplicate: outcome = "duplicate"
        case .test: outcome = "test"
        case .rejected: outcome = "rejected"
        case .retryLater, .failed: outcome = "failed"
        }
        return Labels(version: result.version.rawValue, type: result.notificationType ?? "unverified", outcome: outcome)
    }
}
