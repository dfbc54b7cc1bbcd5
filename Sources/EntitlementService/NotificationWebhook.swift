import HTTPCore

/// `POST /apple/notifications`: hands the body to the ingestor on a task (never on the loop
/// thread) and answers once the notification is durably applied, duplicate, or refused.
public struct NotificationWebhook: Sendable {
    let ingestor: NotificationIngestor

    public init(ingestor: NotificationIngestor) {
        self.ingestor = ingestor
    }

    public func register(into router: inout HTTPRouter) {
        let ingestor = self.ingestor
        router.add("POST", "/apple/notifications") { request, writer in
            if request.bodyLimitExceeded {
                writer.respond(.text(413, "notification body too large\n"))
                return
            }
            let task = Task {
                let answer = await ingestor.ingest(request.body)
                let text = answer.status == 200 ? "ok\n" : answer.reason + "\n"
                writer.respond(.text(answer.status, text))
            }
            writer.onCancel { task.cancel() }
        }
    }
}
