import ProtobufWire

extension GRPCHealthV1 {
    /// `grpc.health.v1.HealthCheckResponse`: the serving status of the checked service.
    public struct HealthCheckResponse: ProtobufSchemaMessage {
        /// The proto nests the enum in this message; the Swift type lives one level up.
        public typealias ServingStatus = GRPCHealthV1.ServingStatus

        public var status: ServingStatus = .unknown

        public init() {}

        public init(status: ServingStatus) {
            self.status = status
        }

        public static let schema: [ProtobufSchemaField<Self>] = [.enumeration(1, \.status)]
    }
}
