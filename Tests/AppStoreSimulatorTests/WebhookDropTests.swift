import AppStoreSimulator
import Synchronization
import TestSupport
import XCTest

/// Dropped deliveries: the policy as a table, and the sender never posting what it drops
/// while the notification history still holds it.
final class WebhookDropTests: XCTestCase {
    private typealias F = SimulationFixture

    func testPolicyTable() {
        let cases: [(String, [Bool]?)] = [
            ("none", [false, false, false, false]),
            ("all", [true, true, true, true]),
            ("1", [true, true, true, true]),
            ("2", [false, true, false, true]),
            ("3", [false, false, true, false]),
            ("0", [false, false, false, false]),
            ("-1", nil), ("some", nil), ("", nil),
        ]
        for (text, expected) in cases {
            guard var policy = WebhookDropPolicy(text: text) else {
                XCTAssertNil(expected, text)
                continue
            }
            XCTAssertEqual((0..<4).map { _ in policy.shouldDrop() }, expected, text)
        }
    }

    func testDroppedDeliveriesAreNeverPostedButStayInTheHistory() async throws {
        let poster = CountingPoster()
        let delivery = WebhookDelivery(
            poster: poster, planner: DeliveryPlanner(order: .inOrder, duplicateRate: 0), seed: 1,
            drop: WebhookDropPolicy(text: "2")!)
        let api = try ServerAPIFixture(pageSize: 20, delivery: delivery)
        let id = try api.purchase(user: "alice")
        try api.control("auto-renew", ["original_transaction_id": id, "enabled": false])
        try api.control("auto-renew", ["original_transaction_id": id, "enabled": true])
        // No wait here: the policy a notification meets is the one set when its event happened,
        // however far behind the sender is (testAPolicySetLaterLeavesEarlierNotificationsAlone).
        try api.control("drop-webhooks", ["drop": "all"])
        try api.control("refund", ["transaction_id": id])
        try await eventually("nothing pending") { delivery.pending == 0 }
        XCTAssertEqual(poster.count, 2, "the 2nd of three was dropped, and the refund after 'all'")
        let dropped = delivery.recentDeliveries.filter(\.isDropped).map(\.label)
        XCTAssertEqual(dropped, ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "REFUND"])

        let history = try XCTUnwrap(try api.call(
            "POST", "/inApps/v1/notifications/history",
            body: ["startDate": F.start - F.day, "endDate": F.start + 1]).json)
        XCTAssertEqual((history["notificationHistory"] as? [Any])?.count, 4)
        let failures = try XCTUnwrap(try api.call(
            "POST", "/inApps/v1/notifications/history",
            body: ["startDate": F.start - F.day, "endDate": F.start + 1, "onlyFailures": true]).json)
        let entries = try XCTUnwrap(failures["notificationHistory"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 2)
        let types = try entries.map { try api.payload(try XCTUnwrap($0["signedPayload"] as? String)) }
            .map { $0["notificationType"] as? String }
        XCTAssertEqual(types, ["DID_CHANGE_RENEWAL_STATUS", "REFUND"])
        let attempts = entries.compactMap { ($0["sendAttempts"] as? [[String: Any]])?.first?["sendAttemptResult"] }
        XCTAssertEqual(attempts as? [String], ["NO_RESPONSE", "NO_RESPONSE"])
    }

    /// A policy applies to notifications of events after it was set, even while the sender is
    /// still busy with earlier ones (here held back by a closed gate, as a loaded machine does).
    func testAPolicySetLaterLeavesEarlierNotificationsAlone() async throws {
        let poster = GatedPoster()
        let delivery = WebhookDelivery(
            poster: poster, planner: DeliveryPlanner(order: .inOrder, duplicateRate: 0), seed: 1)
        let api = try ServerAPIFixture(pageSize: 20, delivery: delivery)
        let id = try api.purchase(user: "alice")
        try api.control("auto-renew", ["original_transaction_id": id, "enabled": false])
        try api.control("drop-webhooks", ["drop": "all"])
        try api.control("refund", ["transaction_id": id])
        poster.open()
        try await eventually("nothing pending") { delivery.pending == 0 }
        XCTAssertEqual(poster.count, 2, "both notifications from before 'all' were posted")
        XCTAssertEqual(delivery.recentDeliveries.map(\.label),
                       ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "REFUND"])
        XCTAssertEqual(delivery.recentDeliveries.map(\.isDropped), [false, false, true])
    }
}

private final class CountingPoster: WebhookPoster {
    private let posts = Mutex(0)
    var count: Int { posts.withLock { $0 } }

    func post(_ body: [UInt8]) async -> Int? {
        posts.withLock { $0 += 1 }
        return 200
    }
}

/// Answers no post until ``open()``: a sender that has fallen behind.
private final class GatedPoster: WebhookPoster {
    private struct State {
        var isOpen = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var count = 0
    }
    private let state = Mutex(State())
    var count: Int { state.withLock { $0.count } }

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func post(_ body: [UInt8]) async -> Int? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
        state.withLock { $0.count += 1 }
        return 200
    }
}
