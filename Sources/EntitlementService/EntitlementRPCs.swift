import EntitlementAPI
import EntitlementPorts
import Entitlements
import RPCCore
import ServiceRuntime

/// The `entitlement.v1.EntitlementService` methods and how each one runs.
///
/// CheckEntitlement, ExplainEntitlement and ListHistory read facts that the store keeps cached
/// in memory (or reads on its read connections) and never wait for the writer, so they are
/// registered inline: they answer on the connection's loop thread with no task hop.
/// SubmitReceipt talks to Apple and writes, so it runs as a task.
public struct EntitlementRPCs: Sendable {
    public static let servicePrefix = "/entitlement.v1.EntitlementService/"

    let repository: any EntitlementRepository
    let catalog: Catalog
    let now: UnixClock
    let receipts: ReceiptSubmission
    /// RefreshEntitlements; without one the RPC answers FAILED_PRECONDITION.
    let refresh: EntitlementRefresh?

    public init(repository: any EntitlementRepository, catalog: Catalog, receipts: ReceiptSubmission,
                now: @escaping UnixClock, refresh: EntitlementRefresh? = nil) {
        self.repository = repository
        self.catalog = catalog
        self.receipts = receipts
        self.now = now
        self.refresh = refresh
    }

    public func register(into router: inout RPCRouter) {
        router.registerInline(EntitlementRPCs.servicePrefix + "CheckEntitlement") {
            (request: EntitlementV1.CheckEntitlementRequest, _: RPCContext) in
            try self.checkEntitlement(request)
        }
        router.registerInline(EntitlementRPCs.servicePrefix + "ListHistory") {
            (request: EntitlementV1.ListHistoryRequest, _: RPCContext) in
            try self.listHistory(request)
        }
        router.registerInline(EntitlementRPCs.servicePrefix + "ExplainEntitlement") {
            (request: EntitlementV1.ExplainEntitlementRequest, _: RPCContext) in
            try self.explainEntitlement(request)
        }
        router.register(EntitlementRPCs.servicePrefix + "SubmitReceipt") {
            (
                request: EntitlementV1.SubmitReceiptRequest, context: RPCContext
            ) async throws -> EntitlementV1.SubmitReceiptResponse in
            try await self.receipts.submit(request, deadline: context.deadline)
        }
        router.register(EntitlementRPCs.servicePrefix + "RefreshEntitlements") {
            (
                request: EntitlementV1.RefreshEntitlementsRequest, context: RPCContext
            ) async throws -> EntitlementV1.RefreshEntitlementsResponse in
            guard let refresh = self.refresh else {
                throw RPCError(.failedPrecondition, ReceiptSubmission.serverAPIRequired)
            }
            return try await refresh.refresh(request, deadline: context.deadline)
        }
    }

    func checkEntitlement(
        _ request: EntitlementV1.CheckEntitlementRequest
    ) throws -> EntitlementV1.CheckEntitlementResponse {
        let at = try evaluationTime(userID: request.userID, atMs: request.atMs)
        let facts = try withStoreErrors { try repository.facts(userID: request.userID) }
        let check = EntitlementRules.check(facts, productID: request.productID,
                                           entitlementID: request.entitlementID, at: at, catalog: catalog)
        var response = EntitlementV1.CheckEntitlementResponse()
        response.active = check.active
        response.entitlements = APIMapping.entitlements(check.entitlements)
        response.evaluatedAtMs = check.evaluatedAtMs
        return response
    }

    /// Checks the user id and `at_ms` shared by CheckEntitlement and ExplainEntitlement, and
    /// returns the instant both evaluate at, so the two answers always agree.
    ///
    /// at_ms 0 is now: everything Apple told us counts, even a purchase dated ahead of our
    /// clock; only an explicit instant ignores what was bought after it.
    func evaluationTime(userID: String, atMs: Int64) throws -> EvaluationTime {
        guard !userID.isEmpty else { throw RPCError(.invalidArgument, "user_id is required") }
        guard atMs >= 0 else {
            throw RPCError(.invalidArgument, "at_ms must be 0 (now) or a positive Unix time in milliseconds")
        }
        return atMs == 0 ? .now(now()) : .at(atMs)
    }

    func listHistory(_ request: EntitlementV1.ListHistoryRequest) throws -> EntitlementV1.ListHistoryResponse {
        guard !request.userID.isEmpty else { throw RPCError(.invalidArgument, "user_id is required") }
        let page = try withStoreErrors {
            try repository.history(userID: request.userID,
                                   productID: request.productID.isEmpty ? nil : request.productID,
                                   pageSize: Int(request.pageSize),
                                   pageToken: request.pageToken.isEmpty ? nil : request.pageToken)
        }
        var response = EntitlementV1.ListHistoryResponse()
        response.events = page.events.map(APIMapping.historyEvent)
        response.nextPageToken = page.nextPageToken
        return response
    }
}
