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
    /// GetAppAccountToken; without one the RPC answers UNIMPLEMENTED.
    let accountTokens: (any AccountTokens)?
    /// GrantEntitlement and RevokeGrant; without one they answer UNIMPLEMENTED.
    let grants: (any GrantStore)?
    /// Where grants and revocations are logged (an audit trail beside history), by actor.
    let logger: Logger?

    public init(repository: any EntitlementRepository, catalog: Catalog, receipts: ReceiptSubmission,
                now: @escaping UnixClock, refresh: EntitlementRefresh? = nil,
                accountTokens: (any AccountTokens)? = nil, grants: (any GrantStore)? = nil, logger: Logger? = nil) {
        self.accountTokens = accountTokens
        self.grants = grants
        self.logger = logger
        self.repository = repository
        self.catalog = catalog
        self.receipts = receipts
        self.now = now
        self.refresh = refresh
    }

    public func register(into router: inout RPCRouter) {
        router.registerInlineFramed(EntitlementRPCs.servicePrefix + "CheckEntitlement") {
            (request: EntitlementV1.CheckEntitlementRequest, _: RPCContext) in
            try self.checkEntitlementFramed(request)
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
        router.register(EntitlementRPCs.servicePrefix + "GetAppAccountToken") {
            (
                request: EntitlementV1.GetAppAccountTokenRequest, _: RPCContext
            ) async throws -> EntitlementV1.GetAppAccountTokenResponse in
            try await self.appAccountToken(request)
        }
        registerGrants(into: &router)
    }

    func appAccountToken(
        _ request: EntitlementV1.GetAppAccountTokenRequest
    ) async throws -> EntitlementV1.GetAppAccountTokenResponse {
        guard !request.userID.isEmpty else { throw RPCError(.invalidArgument, "user_id is required") }
        guard let accountTokens else {
            throw RPCError(.unimplemented, "this server's store issues no app account tokens")
        }
        let token = try await withStoreErrors { try await accountTokens.appAccountToken(userID: request.userID) }
        return EntitlementV1.GetAppAccountTokenResponse(appAccountToken: token)
    }

    /// CheckEntitlement evaluated and encoded afresh on every call. The wire no longer uses it
    /// (``checkEntitlementFramed(_:)`` serves the kept bytes); it stays as the plain reference
    /// the tests hold the framed answer equal to, byte for byte.
    func checkEntitlement(
        _ request: EntitlementV1.CheckEntitlementRequest
    ) throws -> EntitlementV1.CheckEntitlementResponse {
        let at = try evaluationTime(userID: request.userID, atMs: request.atMs)
        let facts = try withStoreErrors { try repository.facts(userID: request.userID) }
        return Self.response(to: check(request, facts, at: at), facts: facts)
    }

    /// CheckEntitlement as the wire carries it: the same answer as ``checkEntitlement(_:)``,
    /// byte for byte, kept with the user's cached facts and handed out again while it holds.
    ///
    /// Judging the facts, mapping and encoding the answer cost a sixth of a call, for bytes
    /// that stay the same call after call but for `evaluated_at_ms` (the last field, so it is
    /// appended to the kept bytes per millisecond). Only answers at now are kept: at an explicit
    /// `at_ms` which facts count moves with the instant. The facts' ``CheckAnswerMemo`` says
    /// for which instants and filters a kept answer holds.
    ///
    /// A cached user's memo comes without their facts (``KeptAnswersOrFacts``); the facts are
    /// asked for only when the memo has no answer that holds, which a user checked again and
    /// again with the same filters meets once per change of state.
    func checkEntitlementFramed(_ request: EntitlementV1.CheckEntitlementRequest) throws -> RPCResponseBody {
        let at = try evaluationTime(userID: request.userID, atMs: request.atMs)
        let facts: UserFacts
        switch try withStoreErrors({ try repository.keptAnswersOrFacts(userID: request.userID) }) {
        case let .kept(memo):
            if request.atMs == 0, let framed = memo.answer(
                productID: request.productID, entitlementID: request.entitlementID, at: at.instantMs,
                render: Self.stamp) {
                return RPCResponseBody(framed: framed)
            }
            facts = try withStoreErrors { try repository.facts(userID: request.userID) }
        case let .facts(read):
            facts = read
        }
        guard request.atMs == 0, let memo = facts.checkAnswers else {
            return RPCResponseBody(Self.response(to: check(request, facts, at: at), facts: facts))
        }
        if let framed = memo.answer(productID: request.productID, entitlementID: request.entitlementID,
                                    at: at.instantMs, render: Self.stamp) {
            return RPCResponseBody(framed: framed)
        }
        let check = check(request, facts, at: at)
        var timeless = Self.response(to: check, facts: facts)
        timeless.evaluatedAtMs = 0
        let timelessFramed = RPCResponseBody(timeless).framed
        let framed = Self.stamp(timelessFramed, check.evaluatedAtMs)
        memo.keep(check, productID: request.productID, entitlementID: request.entitlementID,
                  timeless: timelessFramed, rendered: framed)
        return RPCResponseBody(framed: framed)
    }

    private func check(
        _ request: EntitlementV1.CheckEntitlementRequest, _ facts: UserFacts, at: EvaluationTime
    ) -> EntitlementCheck {
        EntitlementRules.check(facts, productID: request.productID, entitlementID: request.entitlementID,
                               at: at, catalog: catalog)
    }

    private static func response(
        to check: EntitlementCheck, facts: UserFacts
    ) -> EntitlementV1.CheckEntitlementResponse {
        var response = EntitlementV1.CheckEntitlementResponse()
        response.active = check.active
        response.entitlements = APIMapping.entitlements(check.entitlements)
        APIMapping.addAppAccountTokens(&response.entitlements, from: facts)
        response.evaluatedAtMs = check.evaluatedAtMs
        return response
    }

    /// A framed answer without its time stamp, stamped with `evaluatedAtMs`: the response's
    /// last field, so appending it gives the bytes the whole response encodes to.
    private static func stamp(_ timelessFramed: [UInt8], _ evaluatedAtMs: Int64) -> [UInt8] {
        RPCResponseBody(timelessFramed, appending: EntitlementV1.CheckEntitlementResponse(evaluatedAtMs: evaluatedAtMs))
            .framed
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

    public func listHistory(_ request: EntitlementV1.ListHistoryRequest) throws -> EntitlementV1.ListHistoryResponse {
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
