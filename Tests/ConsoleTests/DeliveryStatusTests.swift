import EntitlementPorts
import Entitlements
import Testing
@testable import Console

/// How one of the user's changes stands with one endpoint, from the endpoint's cursor and the
/// user's oldest undelivered row (the outbox keeps undelivered rows only).
@Suite struct DeliveryStatusTests {
    static func change(_ sequence: Int64) -> EntitlementChange {
        EntitlementChange(
            sequence: sequence, changeID: "log-\(sequence)", userID: "u1",
            entitlement: Entitlement(productID: "pro.monthly", originalTransactionID: "1", state: .active,
                                     purchasedAtMs: 0, expiresAtMs: 1, productType: .autoRenewable,
                                     environment: .production, latestTransactionID: "1", entitlementID: "pro"),
            previousState: nil, occurredAtMs: 0, causeEventID: "")
    }

    static func waiting(_ sequence: Int64, attempts: Int) -> WebhookDelivery {
        WebhookDelivery(id: 1, endpoint: "e", message: WebhookMessage(sequence: sequence, changeID: "log-\(sequence)",
                                                                      userID: "u1", body: "{}"),
                        enqueuedAtMs: 0, attempts: attempts, firstAttemptAtMs: 0, nextAttemptAtMs: 60_000)
    }

    @Test(arguments: [
        // change, endpoint cursor, waiting row (sequence, attempts), status
        (Int64(7), Int64(5), nil as (Int64, Int)?, "not queued yet"),
        (7, 7, (7, 0), "queued"),
        (7, 7, (7, 1), "retrying: 1 failed attempt, next at 1970-01-01T00:01:00Z"),
        (7, 9, (7, 3), "retrying: 3 failed attempts, next at 1970-01-01T00:01:00Z"),
        (8, 9, (7, 3), "waiting for an earlier change"),
        (6, 9, (7, 3), "sent (delivered, or dead-lettered: see entitlementctl webhooks status)"),
        (7, 9, nil, "sent (delivered, or dead-lettered: see entitlementctl webhooks status)"),
    ])
    func status(_ sequence: Int64, _ cursor: Int64, _ waiting: (Int64, Int)?, _ expected: String) {
        let endpoint = WebhookEndpointStatus(endpoint: "e", active: true, cursor: cursor)
        let row = waiting.map { Self.waiting($0.0, attempts: $0.1) }
        #expect(ServiceCustomerDesk.deliveryStatus(Self.change(sequence), endpoint: endpoint, waiting: row)
                == expected)
    }
}
