import ProtoCodegen
import Testing

/// One naming rule, checked on the names our protos actually use.
struct SwiftNamesTests {
    @Test(arguments: [
        ("original_transaction_id", "originalTransactionID"),
        ("is_in_intro_offer_period", "isInIntroOfferPeriod"),
        ("grace_period_expires_at_ms", "gracePeriodExpiresAtMs"),
        ("compact_jws", "compactJWS"),
        ("facts_json", "factsJSON"),
        ("id", "id"),
        ("service", "service"),
    ])
    func properties(proto: String, swift: String) {
        #expect(SwiftNames.property(proto) == swift)
    }

    @Test(arguments: [
        ("ENTITLEMENT_STATE_GRACE_PERIOD", "EntitlementState", "gracePeriod"),
        ("EVENT_SOURCE_NOTIFICATION_V1", "EventSource", "notificationV1"),
        ("EVENT_SOURCE_SERVER_API", "EventSource", "serverAPI"),
        ("NOT_SERVING", "ServingStatus", "notServing"),
        ("PRODUCT_TYPE_UNSPECIFIED", "ProductType", "unspecified"),
        ("SIZE_2X", "Size", "size2x"),
    ])
    func enumValues(proto: String, enumName: String, swift: String) {
        #expect(SwiftNames.enumValue(proto, of: enumName) == swift)
    }

    @Test func namespacesAndKeywords() {
        #expect(SwiftNames.namespace(package: "entitlement.v1") == "EntitlementV1")
        #expect(SwiftNames.namespace(package: "grpc.health.v1") == "GRPCHealthV1")
        #expect(SwiftNames.identifier("operator") == "`operator`")
        #expect(SwiftNames.identifier("actor") == "actor")
    }
}
