import EntitlementService
import EntitlementPorts
import Entitlements
import Foundation
import RPCCore

/// `entitlementd.testing.v1.Testing`: served only by the test executable `entitlementd-testing`,
/// so the interop tests can reach paths no production caller should (slow calls, direct seeding).
public struct TestingService: Sendable {
    public static let serviceName = "entitlementd.testing.v1.Testing"
    let repository: any EntitlementRepository

    public init(repository: any EntitlementRepository) {
        self.repository = repository
    }

    public func register(into router: inout RPCRouter) {
        router.register("/entitlementd.testing.v1.Testing/Sleep") {
            (request: EntitlementdTestingV1.SleepRequest, _: RPCContext) async throws
                -> EntitlementdTestingV1.SleepResponse in
            try await Task.sleep(for: .milliseconds(Int64(max(0, request.milliseconds))))
            return EntitlementdTestingV1.SleepResponse()
        }
        router.register("/entitlementd.testing.v1.Testing/Seed") {
            (request: EntitlementdTestingV1.SeedRequest, _: RPCContext) async throws
                -> EntitlementdTestingV1.SeedResponse in
            guard !request.userID.isEmpty else { throw RPCError(.invalidArgument, "user_id is required") }
            let write = try SeedFacts.parse(request.factsJSON, userID: request.userID)
            let outcome = try await withStoreErrors { try await repository.write(write) }
            return EntitlementdTestingV1.SeedResponse(newTransactions: Int32(outcome.newTransactions))
        }
    }
}

/// Reads the Seed call's JSON (Apple-like snake_case field names) into a store write.
enum SeedFacts {
    static func parse(_ json: String, userID: String) throws -> FactsWrite {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw RPCError(.invalidArgument, "facts_json must be a JSON object")
        }
        let transactions = try (object["transactions"] as? [[String: Any]] ?? []).map(transaction)
        let renewals = try (object["renewal_infos"] as? [[String: Any]] ?? []).map(renewal)
        return FactsWrite(userID: userID, transactions: transactions, renewalInfos: renewals, source: .receipt)
    }

    static func transaction(_ t: [String: Any]) throws -> Transaction {
        guard let id = string(t["transaction_id"]), let productID = string(t["product_id"]),
              let purchase = int(t["purchase_date_ms"]) else {
            throw RPCError(.invalidArgument, "each transaction needs transaction_id, product_id and purchase_date_ms")
        }
        return Transaction(
            transactionID: id, originalTransactionID: string(t["original_transaction_id"]) ?? id,
            productID: productID, purchaseDateMs: purchase,
            originalPurchaseDateMs: int(t["original_purchase_date_ms"]),
            expiresDateMs: int(t["expires_date_ms"]), cancellationDateMs: int(t["cancellation_date_ms"]),
            isTrialPeriod: bool(t["is_trial_period"]), isInIntroOfferPeriod: bool(t["is_in_intro_offer_period"]),
            isUpgraded: bool(t["is_upgraded"]),
            subscriptionGroupIdentifier: string(t["subscription_group_identifier"]),
            environment: string(t["environment"]) == "sandbox" ? .sandbox : .production)
    }

    static func renewal(_ r: [String: Any]) throws -> RenewalInfo {
        guard let chain = string(r["original_transaction_id"]) else {
            throw RPCError(.invalidArgument, "each renewal info needs original_transaction_id")
        }
        return RenewalInfo(
            originalTransactionID: chain, autoRenewStatus: bool(r["auto_renew_status"]),
            autoRenewProductID: string(r["auto_renew_product_id"]),
            isInBillingRetryPeriod: bool(r["is_in_billing_retry_period"]),
            gracePeriodExpiresDateMs: int(r["grace_period_expires_date_ms"]),
            expirationIntent: int(r["expiration_intent"]).map { Int($0) },
            signedDateMs: int(r["signed_date_ms"]) ?? 0)
    }

    static func string(_ value: Any?) -> String? {
        if let s = value as? String { return s }
        if let n = value as? NSNumber { return n.stringValue }
        return nil
    }

    static func int(_ value: Any?) -> Int64? {
        if let n = value as? NSNumber { return n.int64Value }
        if let s = value as? String { return Int64(s) }
        return nil
    }

    static func bool(_ value: Any?) -> Bool {
        if let b = value as? Bool { return b }
        if let s = value as? String { return s == "true" || s == "1" }
        return false
    }
}
