import EntitlementPorts

/// The feed loop: change log -> outbox, from the endpoints' durable cursor.
extension WebhookDispatcher {
    func feedLoop(from start: Int64) async {
        var cursor = start
        var reportedGapAt: Int64?
        for await _ in feedWakes {
            do {
                while !stopped.isOpen {
                    let bounds = try log.changeLogBounds()
                    // Retention pruned changes this server never fed (it ran without
                    // --webhook-url for longer than --change-retention): say so, once.
                    if bounds.oldestRetained > cursor + 1 && reportedGapAt != cursor {
                        reportedGapAt = cursor
                        logger.error("webhooks: changes were pruned from the log before they were enqueued; "
                                     + "they are not delivered",
                                     [("after", cursorText(cursor)),
                                      ("oldest_retained", cursorText(bounds.oldestRetained))])
                    }
                    let changes = try log.changes(after: cursor, userID: nil, limit: configuration.feedBatchSize)
                    guard let last = changes.last else { break }
                    let messages = changes.map(message)
                    try await outbox.enqueueWebhooks(messages, through: last.sequence, replay: false, nowMs: clock())
                    cursor = last.sequence
                    deliveryWake.yield()
                    if changes.count < configuration.feedBatchSize { break }
                }
            } catch {
                // The cursor did not move: the same changes are fed again on the next wake-up.
                logger.error("webhooks: cannot enqueue changes; retrying", [("error", "\(error)")])
            }
        }
    }

    /// Re-enqueues every change after `sequence` for every endpoint (up to where each has been
    /// fed; later ones arrive through the feed anyway). Returns the rows added.
    ///
    /// Throws ``WebhookReplayError`` when changes after `sequence` were already pruned.
    public func replay(after sequence: Int64) async throws -> Int {
        let bounds = try log.changeLogBounds()
        // A cursor is complete (nothing after it pruned) iff it is >= oldestRetained - 1.
        guard sequence >= bounds.oldestRetained - 1 else {
            throw WebhookReplayError(
                "changes after \(cursorText(sequence)) were pruned (the oldest retained is "
                    + "\(cursorText(bounds.oldestRetained))): replay from a later cursor")
        }
        var cursor = sequence
        var added = 0
        while true {
            let changes = try log.changes(after: cursor, userID: nil, limit: configuration.feedBatchSize)
            guard let last = changes.last else { break }
            added += try await outbox.enqueueWebhooks(changes.map(message), through: last.sequence, replay: true,
                                                      nowMs: clock())
            cursor = last.sequence
        }
        deliveryWake.yield()
        return added
    }

    func message(_ change: EntitlementChange) -> WebhookMessage {
        WebhookMessage(sequence: change.sequence, changeID: change.changeID, userID: change.userID,
                       body: ChangeJSON.body(change, cursor: cursorText(change.sequence)))
    }
}

/// A replay that cannot be done as asked; the message says what to do instead.
public struct WebhookReplayError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
