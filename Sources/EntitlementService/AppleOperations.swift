import AppStoreServerAPI
import EntitlementAPI
import EntitlementPorts
import Entitlements
import RPCCore
import ServiceRuntime

/// ExtendSubscription, LookUpOrder, SignPromotionalOffer and RecordConsumption: what support, finance and growth
/// do with Apple every week, through the App Store Server API client and the In-App Purchase
/// key the service already holds.
///
/// Without the key (``serverAPI`` nil) each answers FAILED_PRECONDITION naming the flags that
/// configure it. Support's methods (extend, look up) need an operator role; signing an offer
/// and reporting consumption are the app backend's calls (rpc or admin).
public struct AppleOperations: Sendable {
    let serverAPI: ServerAPIPurchases?
    let repository: any EntitlementRepository
    let accountTokens: (any AccountTokens)?
    let catalog: Catalog
    let now: UnixClock
    /// Where extensions are logged by actor (an audit trail beside history).
    let logger: Logger?
    /// RecordConsumption's store; without one it answers UNIMPLEMENTED.
    let consumption: (any ConsumptionAnswers)?
    /// Nudged after RecordConsumption so an open request is answered at once.
    let answerer: ConsumptionAnswerer?

    public init(serverAPI: ServerAPIPurchases?, repository: any EntitlementRepository,
                accountTokens: (any AccountTokens)?, catalog: Catalog, now: @escaping UnixClock,
                logger: Logger? = nil, consumption: (any ConsumptionAnswers)? = nil,
                answerer: ConsumptionAnswerer? = nil) {
        self.consumption = consumption
        self.answerer = answerer
        self.serverAPI = serverAPI
        self.repository = repository
        self.accountTokens = accountTokens
        self.catalog = catalog
        self.now = now
        self.logger = logger
    }

    public func register(into router: inout RPCRouter) {
        let prefix = EntitlementRPCs.servicePrefix
        router.register(prefix + "ExtendSubscription", roles: Principal.operators) {
            (
                request: EntitlementV1.ExtendSubscriptionRequest, context: RPCContext
            ) async throws -> EntitlementV1.ExtendSubscriptionResponse in
            try await ServiceErrors.mapping {
                try await self.extendSubscription(request, by: context.principal, deadline: context.deadline)
            }
        }
        router.register(prefix + "LookUpOrder", roles: Principal.operators) {
            (
                request: EntitlementV1.LookUpOrderRequest, context: RPCContext
            ) async throws -> EntitlementV1.LookUpOrderResponse in
            try await ServiceErrors.mapping { try await self.lookUpOrder(request, deadline: context.deadline) }
        }
        router.register(prefix + "SignPromotionalOffer", roles: Principal.serviceCallers) {
            (
                request: EntitlementV1.SignPromotionalOfferRequest, _: RPCContext
            ) async throws -> EntitlementV1.SignPromotionalOfferResponse in
            try await ServiceErrors.mapping { try await self.signPromotionalOffer(request) }
        }
        router.register(prefix + "RecordConsumption", roles: Principal.serviceCallers) {
            (
                request: EntitlementV1.RecordConsumptionRequest, _: RPCContext
            ) async throws -> EntitlementV1.RecordConsumptionResponse in
            try await ServiceErrors.mapping { try await self.recordConsumption(request) }
        }
    }

    /// The configured client, or FAILED_PRECONDITION naming the flags that configure it.
    func configuredServerAPI() throws -> ServerAPIPurchases {
        guard let serverAPI else { throw RPCError(.failedPrecondition, ReceiptSubmission.serverAPIRequired) }
        return serverAPI
    }
}
