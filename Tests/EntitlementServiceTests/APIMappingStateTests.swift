import EntitlementAPI
@testable import EntitlementService
import Entitlements
import ProtobufWire
import Testing

/// The wire's `active` and `state` for every domain state, written out: ``APIMapping`` reads
/// `active` off the stored state (`state.grantsAccess`) instead of calling
/// ``Entitlements/Entitlement/isActive``, for the hot path, so a change to either must show
/// here before a caller sees an entitlement granted or withheld that should not be.
struct APIMappingStateTests {
    /// Domain state → (wire state number from entitlement.proto, wire `active`).
    static let table: [(EntitlementState, Int32, Bool)] = [
        (.active, 1, true),
        (.gracePeriod, 2, true),
        (.billingRetry, 3, false),
        (.expired, 4, false),
        (.revoked, 5, false),
    ]

    static func entitlement(_ state: EntitlementState) -> Entitlements.Entitlement {
        Entitlements.Entitlement(
            productID: "pro.monthly", originalTransactionID: "1000", state: state,
            purchasedAtMs: 1_700_000_000_000, expiresAtMs: 1_702_592_000_000,
            productType: .autoRenewable, subscriptionGroupID: "g1", environment: .production,
            latestTransactionID: "1003", entitlementID: "pro")
    }

    @Test func theTableCoversEveryDomainState() {
        #expect(Set(Self.table.map(\.0)) == Set(EntitlementState.allCases))
        #expect(Self.table.count == EntitlementState.allCases.count)
    }

    @Test(arguments: table)
    func oneEntitlementMapsStateAndActive(state: EntitlementState, wireState: Int32, active: Bool) throws {
        let domain = Self.entitlement(state)
        let wire = APIMapping.entitlement(domain)
        #expect(wire.state.rawValue == wireState)
        #expect(wire.active == active)
        #expect(wire.active == domain.isActive, "the mapping and Entitlement.isActive disagree for \(state)")
        // What a caller decodes from the bytes on the wire.
        let decoded = try EntitlementV1.Entitlement(protobufBytes: wire.protobufBytes())
        #expect(decoded.state.rawValue == wireState)
        #expect(decoded.active == active)
    }

    /// The list path reads each element through a pointer (no copies): same answers, in order.
    @Test func aListMapsEachStateInPlaceAndInOrder() {
        let list = Self.table.map { Self.entitlement($0.0) }
        let wire = APIMapping.entitlements(list)
        #expect(wire.map(\.state.rawValue) == Self.table.map(\.1))
        #expect(wire.map(\.active) == Self.table.map(\.2))
        #expect(wire.map(\.productID) == Array(repeating: "pro.monthly", count: Self.table.count))
    }
}
