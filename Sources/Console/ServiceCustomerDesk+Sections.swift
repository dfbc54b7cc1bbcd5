import EntitlementPorts
import Entitlements

/// The customer page's sections that are read from the ports rather than the RPC handlers.
extension ServiceCustomerDesk {
    /// History pages read for ownership events at most: a user's history is a few hundred
    /// events in practice, and a page that never loads is worse than one that stops early.
    static let ownershipPagesRead = 20

    /// Transfers away from this user and refused claims on their chains, newest first. Both
    /// sit in this user's own history (a transfer in the losing owner's, a refusal in the
    /// owner's), so no other user's history is read.
    func ownershipEvents(userID: String) throws -> [OwnershipEvent] {
        var found: [OwnershipEvent] = []
        var token: String?
        for _ in 0..<Self.ownershipPagesRead {
            let page = try repository.history(userID: userID, productID: nil, pageSize: HistoryPage.maximumPageSize,
                                              pageToken: token)
            for event in page.events {
                guard let other = event.counterpartUserID else { continue }
                found.append(OwnershipEvent(kind: event.kind == .ownershipTransfer ? .lostTo : .claimRefused,
                                            originalTransactionID: event.originalTransactionID,
                                            otherUserID: other, occurredAtMs: event.occurredAtMs))
            }
            guard !page.nextPageToken.isEmpty else { break }
            token = page.nextPageToken
        }
        return found
    }

    /// The user's latest changes as each active webhook endpoint has them, newest first.
    ///
    /// The outbox keeps undelivered rows only (a delivered row is deleted, a dead one moves to
    /// the dead letters), so a change behind an endpoint's cursor with no row left is "sent";
    /// whether it was delivered or dead-lettered shows in `entitlementctl webhooks status`.
    func deliveries(userID: String) throws -> [WebhookDeliveryRow] {
        guard let changeLog, let outbox else { return [] }
        let endpoints = try outbox.webhookStatus().filter(\.active)
        guard !endpoints.isEmpty else { return [] }
        var latest: [EntitlementChange] = []
        var after: Int64 = 0
        while true {
            let batch = try changeLog.changes(after: after, userID: userID, limit: 1000)
            latest = Array((latest + batch).suffix(Self.deliveriesShown))
            guard batch.count == 1000, let last = batch.last else { break }
            after = last.sequence
        }
        var rows: [WebhookDeliveryRow] = []
        for endpoint in endpoints {
            // The user's oldest undelivered row for this endpoint: later ones wait behind it.
            let waiting = try outbox.dueWebhookDeliveries(endpoint: endpoint.endpoint, nowMs: .max, limit: 10_000)
                .first { $0.message.userID == userID }
            for change in latest.reversed() {
                let entitlement = change.entitlement
                rows.append(WebhookDeliveryRow(
                    changeID: change.changeID, occurredAtMs: change.occurredAtMs,
                    subject: entitlement.productID.isEmpty ? entitlement.entitlementID : entitlement.productID,
                    state: entitlement.state.rawValue, endpoint: endpoint.endpoint,
                    status: Self.deliveryStatus(change, endpoint: endpoint, waiting: waiting)))
            }
        }
        return rows
    }

    static func deliveryStatus(_ change: EntitlementChange, endpoint: WebhookEndpointStatus,
                               waiting: WebhookDelivery?) -> String {
        if change.sequence > endpoint.cursor { return "not queued yet" }
        if let waiting {
            if waiting.message.sequence == change.sequence {
                guard waiting.attempts > 0 else { return "queued" }
                return "retrying: \(waiting.attempts) failed attempt\(waiting.attempts == 1 ? "" : "s"), next at "
                    + UTCText.iso8601(milliseconds: waiting.nextAttemptAtMs)
            }
            if waiting.message.sequence < change.sequence { return "waiting for an earlier change" }
        }
        return "sent (delivered, or dead-lettered: see entitlementctl webhooks status)"
    }
}
