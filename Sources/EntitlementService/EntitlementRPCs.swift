import EntitlementAPI
import RPCCore

/// The `entitlement.v1.EntitlementService` methods and how each one runs.
public struct EntitlementRPCs: Sendable {
    public static let servicePrefix = "/entitlement.v1.EntitlementService/"

    public init() {}

    public func register(into router: inout RPCRouter) {
        router.register(EntitlementRPCs.servicePrefix + "SubmitReceipt") {
            (_: EntitlementV1.SubmitReceiptRequest, _: RPCContext) async throws -> EntitlementV1.SubmitReceiptResponse in
            throw RPCError(.unimplemented, "SubmitReceipt is not implemented yet in this version of entitlementd")
        }
        router.registerInline(EntitlementRPCs.servicePrefix + "CheckEntitlement") {
            (_: EntitlementV1.CheckEntitlementRequest, _: RPCContext) throws -> EntitlementV1.CheckEntitlementResponse in
            throw RPCError(.unimplemented, "CheckEntitlement is not implemented yet in this version of entitlementd")
        }
        router.registerInline(EntitlementRPCs.servicePrefix + "ListHistory") {
            (_: EntitlementV1.ListHistoryRequest, _: RPCContext) throws -> EntitlementV1.ListHistoryResponse in
            throw RPCError(.unimplemented, "ListHistory is not implemented yet in this version of entitlementd")
        }
    }
}
