import EntitlementAPI
import Foundation
import ServiceRuntime

extension CommandRunner {
    /// `extend USER ORIGINAL_TX --days N [--reason-code C] [--request-id UUID]`: ExtendSubscription.
    func extend(user: String, originalTransactionID: String) throws -> ExitCode {
        guard let days = try arguments.local.int("days", range: 1...90) else {
            throw FlagError("extend needs --days N (1 to 90)")
        }
        let reasonCode = try arguments.local.int("reason-code", range: 0...3) ?? 1
        let request = EntitlementV1.ExtendSubscriptionRequest(
            userID: user, originalTransactionID: originalTransactionID, extendByDays: Int32(days),
            reasonCode: Int32(reasonCode), requestID: arguments.local.string("request-id") ?? "")
        let response: EntitlementV1.ExtendSubscriptionResponse = try client.unary(
            path: CommandRunner.service + "ExtendSubscription", request: request, metadata: metadata, timeout: timeout)
        print(json ? "{\"effectiveAtMs\":\"\(response.effectiveAtMs)\"}"
              : "extended: \(originalTransactionID) now renews at "
                  + Timestamps.iso8601(milliseconds: response.effectiveAtMs))
        return .ok
    }

    /// `consumption USER TX [--consented] [--percentage N] [--delivery-status S] [--sample]`:
    /// RecordConsumption.
    func consumption(user: String, transactionID: String) throws -> ExitCode {
        var request = EntitlementV1.RecordConsumptionRequest()
        request.userID = user
        request.transactionID = transactionID
        request.customerConsented = try arguments.local.bool("consented")
        request.consumptionPercentage = Int32(try arguments.local.int("percentage", range: 0...100_000) ?? 0)
        request.deliveryStatus = arguments.local.string("delivery-status") ?? "DELIVERED"
        request.sampleContentProvided = try arguments.local.bool("sample")
        let _: EntitlementV1.RecordConsumptionResponse = try client.unary(
            path: CommandRunner.service + "RecordConsumption", request: request, metadata: metadata, timeout: timeout)
        print(json ? "{}" : "recorded: Apple gets it once while its refund question about \(transactionID) is open"
              + (request.customerConsented ? "" : " (not without the customer's consent: --consented)"))
        return .ok
    }

    /// `sign-offer USER PRODUCT OFFER_ID`: SignPromotionalOffer; prints what StoreKit needs.
    func signOffer(user: String, productID: String, offerID: String) throws -> ExitCode {
        let request = EntitlementV1.SignPromotionalOfferRequest(userID: user, productID: productID, offerID: offerID)
        let response: EntitlementV1.SignPromotionalOfferResponse = try client.unary(
            path: CommandRunner.service + "SignPromotionalOffer", request: request, metadata: metadata,
            timeout: timeout)
        let fields = [("keyIdentifier", response.keyID), ("nonce", response.nonce),
                      ("timestamp", String(response.timestampMs)), ("signature", response.signature),
                      ("appAccountToken", response.appAccountToken)]
        if json {
            print("{" + fields.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",") + "}")
        } else {
            print(fields.map { $0.0.padding(toLength: 16, withPad: " ", startingAt: 0) + $0.1 }
                .joined(separator: "\n"))
        }
        return .ok
    }
}
