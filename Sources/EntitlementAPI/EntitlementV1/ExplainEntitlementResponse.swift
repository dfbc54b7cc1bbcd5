import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.ExplainEntitlementResponse`: one explanation per entitlement
    /// CheckEntitlement would answer, in its order.
    public struct ExplainEntitlementResponse: ProtobufSchemaMessage {
        /// The instant the explanations hold for, ms since the Unix epoch.
        public var evaluatedAtMs: Int64 = 0
        public var explanations: [EntitlementExplanation] = []

        public init() {}

        public init(evaluatedAtMs: Int64 = 0, explanations: [EntitlementExplanation] = []) {
            self.evaluatedAtMs = evaluatedAtMs
            self.explanations = explanations
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .int64(1, \.evaluatedAtMs),
            .repeatedMessage(2, \.explanations),
        ]
    }
}
