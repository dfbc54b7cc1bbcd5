import EntitlementPorts
import Entitlements
import SQLDatabase
import ServiceRuntime
import StorageTables

/// One write queued for the writer's next batch, with the continuation that answers its caller once
/// the batch has committed (or the write has failed on its own).
package enum WriteJob<DB: StorageEngine>: Sendable {
    case write(FactsWrite, CheckedContinuation<WriteOutcome, any Error>)
    case notification(NotificationWrite, CheckedContinuation<NotificationOutcome, any Error>)
    /// Webhook outbox rows and delivery outcomes; batched with facts writes.
    case webhooks(WebhookOutboxWrite, CheckedContinuation<WebhookOutboxAnswer, any Error>)
    /// A grant given or revoked by hand; batched with facts writes, its change derived alike.
    case grant(GrantWrite, CheckedContinuation<Grant, any Error>)
    case revokeGrant(GrantRevocation, CheckedContinuation<Grant, any Error>)
}
