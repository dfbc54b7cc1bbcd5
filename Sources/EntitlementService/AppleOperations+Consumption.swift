import EntitlementAPI
import EntitlementPorts
import Entitlements
import RPCCore

extension AppleOperations {
    /// RecordConsumption: what the customer used of a purchase, for Apple's refund question.
    ///
    /// Any time, before or after Apple asks: the data waits with the transaction, and while a
    /// request is open (Apple's 12 hours) and the customer consented, the answer goes to Apple
    /// once (``ConsumptionAnswerer``). The input is checked here, the only moment a caller can
    /// be told; the transaction must be the user's (NOT_FOUND otherwise, as for any other
    /// account's purchase).
    public func recordConsumption(
        _ request: EntitlementV1.RecordConsumptionRequest
    ) async throws -> EntitlementV1.RecordConsumptionResponse {
        _ = try configuredServerAPI()
        if let refusal = ConsumptionRules.refusal(
            userID: request.userID, transactionID: request.transactionID,
            consumptionPercentage: Int(request.consumptionPercentage), deliveryStatus: request.deliveryStatus) {
            throw RPCError(.invalidArgument, refusal)
        }
        guard let consumption else {
            throw RPCError(.unimplemented, "this server's store keeps no consumption data")
        }
        let facts = try withStoreErrors { try repository.facts(userID: request.userID) }
        guard facts.transactions.contains(where: { $0.transactionID == request.transactionID }) else {
            throw RPCError(.notFound, "user '\(request.userID)' has no transaction \(request.transactionID): "
                           + "report consumption for the user who owns the purchase")
        }
        let data = ConsumptionData(
            userID: request.userID, transactionID: request.transactionID,
            customerConsented: request.customerConsented, consumptionPercentage: Int(request.consumptionPercentage),
            deliveryStatus: request.deliveryStatus, sampleContentProvided: request.sampleContentProvided,
            recordedAtMs: now())
        try await withStoreErrors { try await consumption.recordConsumptionData(data) }
        answerer?.nudge()
        return EntitlementV1.RecordConsumptionResponse()
    }
}
