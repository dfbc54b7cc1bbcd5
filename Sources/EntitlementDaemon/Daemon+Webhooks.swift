import EntitlementPorts
import EntitlementService
import Foundation
import HTTPCore
import RPCCore
import ServiceRuntime
import StorageCore
import Webhooks

/// Webhooks: the dispatcher, its admin operations and its metrics.
extension Daemon {
    /// What builds the dispatcher --webhook-url asks for, or nil. Called once the store is
    /// open, before the server takes writes; a dispatcher runs once, so each singleton lease term
    /// builds a new one. An endpoint seen for the first time gets the changes from this moment
    /// on, however long the lease takes to come (an unreadable log: from when it registers).
    func makeWebhookDispatchers(store: any StoreBackend) -> (@Sendable () -> WebhookDispatcher)? {
        guard let configuration = webhookConfiguration else { return nil }
        let metrics = WebhookMetrics(registry: self.metrics, outbox: store)
        let logger = self.logger
        let startedAfter: Int64?
        do {
            startedAfter = try store.changeLogBounds().latest
        } catch {
            startedAfter = nil
            logger.warning("webhooks: the change log could not be read at start; an endpoint seen for the first "
                           + "time gets the changes from when its dispatcher registers it", [("error", "\(error)")])
        }
        return {
            let dispatcher = WebhookDispatcher(
                configuration: configuration, log: store, outbox: store,
                transport: HTTPClientWebhookTransport(maxConnectionsPerHost: configuration.maxConcurrentPerEndpoint),
                logger: logger, cursorText: ChangeCursor.encode, observe: metrics.observe,
                newEndpointsStartAfter: startedAfter)
            logger.info("webhooks: delivering entitlement changes",
                        [("endpoints", configuration.endpoints.map { WebhookEndpointName.redacted($0.absoluteString) }
                            .joined(separator: " "))])
            return dispatcher
        }
    }

    /// `GET /admin/webhooks` (each endpoint's outbox) and `POST /admin/webhooks/replay`.
    func addWebhookOperations(outbox: any WebhookOutbox, dispatcher: WebhookDispatcher?, to routes: inout HTTPRouter) {
        routes.add("GET", "/admin/webhooks") { _, writer in
            do {
                let statuses = try outbox.webhookStatus()
                writer.respond(.json(200, WebhookAdminJSON.status(statuses, nowMs: WallClock.unixMilliseconds())))
            } catch {
                writer.respond(.json(503, WebhookAdminJSON.error("cannot read the webhook outbox: \(error)")))
            }
        }
        routes.add("POST", "/admin/webhooks/replay") { request, writer in
            guard let dispatcher else {
                writer.respond(.json(409, WebhookAdminJSON.error(
                    "no webhooks are configured: start entitlementd with --webhook-url")))
                return
            }
            guard let text = WebhookAdminJSON.fromCursor(request.body), let sequence = ChangeCursor.decode(text)
            else {
                writer.respond(.json(400, WebhookAdminJSON.error(
                    "send {\"from_cursor\": CURSOR} with a cursor from a webhook body or a watch")))
                return
            }
            let task = Task {
                do {
                    let added = try await dispatcher.replay(after: sequence)
                    writer.respond(.json(200, "{\"enqueued\":\(added)}"))
                } catch let error as WebhookReplayError {
                    writer.respond(.json(400, WebhookAdminJSON.error(error.description)))
                } catch {
                    writer.respond(.json(503, WebhookAdminJSON.error("replay failed: \(error)")))
                }
            }
            writer.onCancel { task.cancel() }
        }
    }
}

extension HTTPResponse {
    static func json(_ status: Int, _ json: String) -> HTTPResponse {
        .text(status, json + "\n", contentType: "application/json")
    }
}
