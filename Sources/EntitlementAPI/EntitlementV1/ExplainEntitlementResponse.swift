import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.ExplainEntitlementResponse`: one explanation per entitlement
    /// CheckEntitlement would answer, in its order.
    public struct ExplainEntitlementResponse: ProtobufMessage {
        /// The instant the explanations hold for, ms since the Unix epoch.
        public var evaluatedAtMs: Int64 = 0
        public var explanations: [EntitlementExplanation] = []

        public init() {}

        public init(evaluatedAtMs: Int64 = 0, explanations: [EntitlementExplanation] = []) {
            self.evaluatedAtMs = evaluatedAtMs
            self.explanations = explanations
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .varint): evaluatedAtMs = try reader.readInt64()
                case (2, .lengthDelimited): explanations.append(try reader.readMessage())
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeInt64(evaluatedAtMs, field: 1)
            for explanation in explanations {
                writer.writeMessage(explanation, field: 2)
            }
        }
    }
}
