import AppStore
import AppStoreSimulator
import Entitlements
import Foundation
import XCTest

/// A simulation at a fixed wall clock, and readers of what verifyReceipt says about it.
struct SimulationFixture {
    static let start: Int64 = 1_750_000_000_000
    static let day = SimulatedDuration.day
    static let month = 30 * day
    static let secret = "s3cret"

    var simulation = Simulation(
        configuration: .init(bundleID: "com.example.app", sharedSecret: SimulationFixture.secret),
        wallMs: SimulationFixture.start)

    mutating func subscribe(
        _ product: String = "pro.monthly", user: String = "alice", offer: PurchaseRequest.Offer = .none,
        environment: Environment = .production
    ) throws -> (transaction: Transaction, receipt: String) {
        let outcome = try simulation.purchase(PurchaseRequest(
            productID: product, type: .autoRenewable, periodMs: Self.month, offer: offer, userToken: user,
            environment: environment))
        return (try XCTUnwrap(outcome.transaction), try XCTUnwrap(outcome.receiptData))
    }

    /// verifyReceipt's raw JSON object.
    func verifyJSON(
        _ receipt: String, endpoint: Environment = .production, password: String? = secret
    ) throws -> [String: Any] {
        var request: [String: Any] = ["receipt-data": receipt]
        request["password"] = password
        let body = simulation.verifyReceipt(
            body: Array(try JSONSerialization.data(withJSONObject: request)), endpoint: endpoint)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    }

    /// verifyReceipt read with the service's own decoder.
    func verify(
        _ receipt: String, endpoint: Environment = .production, password: String? = secret
    ) throws -> VerifyReceiptResponse {
        var request: [String: Any] = ["receipt-data": receipt]
        request["password"] = password
        let body = simulation.verifyReceipt(
            body: Array(try JSONSerialization.data(withJSONObject: request)), endpoint: endpoint)
        return try VerifyReceiptResponse.parse(body, observedAtMs: simulation.nowMs)
    }

    func status(_ receipt: String, endpoint: Environment = .production, password: String? = secret) throws -> Int {
        try XCTUnwrap(try verifyJSON(receipt, endpoint: endpoint, password: password)["status"] as? Int)
    }
}

/// "TYPE/SUBTYPE" of each event, to compare sequences at a glance.
func kinds(_ events: [SimulatedEvent]) -> [String] {
    events.map { [$0.notificationType, $0.subtype].compactMap { $0 }.joined(separator: "/") }
}
