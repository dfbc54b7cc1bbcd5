import EntitlementAPI
import EntitlementPorts

extension APIMapping {
    static func change(_ c: EntitlementPorts.EntitlementChange) -> EntitlementV1.EntitlementChange {
        var m = EntitlementV1.EntitlementChange()
        m.cursor = ChangeCursor.encode(c.sequence)
        m.changeID = c.changeID
        m.userID = c.userID
        m.entitlement = entitlement(c.entitlement)
        m.previousState = c.previousState.map(state) ?? .unspecified
        m.occurredAtMs = c.occurredAtMs
        m.causeEventID = c.causeEventID
        return m
    }
}
