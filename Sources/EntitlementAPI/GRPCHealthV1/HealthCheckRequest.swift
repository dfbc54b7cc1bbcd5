import ProtobufWire

extension GRPCHealthV1 {
    /// `grpc.health.v1.HealthCheckRequest`: which service to check.
    public struct HealthCheckRequest: ProtobufSchemaMessage {
        /// A fully qualified service name, e.g. "entitlement.v1.EntitlementService"; empty means
        /// the server as a whole.
        public var service: String = ""

        public init() {}

        public init(service: String) {
            self.service = service
        }

        public static let schema: [ProtobufSchemaField<Self>] = [.string(1, \.service)]
    }
}
