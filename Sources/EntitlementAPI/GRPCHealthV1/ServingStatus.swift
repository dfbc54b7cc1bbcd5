import ProtobufWire

extension GRPCHealthV1 {
    /// `grpc.health.v1.HealthCheckResponse.ServingStatus`: whether a service takes requests.
    ///
    /// Declared at namespace level for short call sites; ``HealthCheckResponse/ServingStatus``
    /// names it where the proto does. Open like every proto3 enum.
    public struct ServingStatus: ProtobufNamedEnum {
        public var rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        public static let unknown = ServingStatus(rawValue: 0)
        public static let serving = ServingStatus(rawValue: 1)
        /// Running but refusing requests, e.g. while draining for graceful shutdown.
        public static let notServing = ServingStatus(rawValue: 2)
        /// Used by the standard's Watch for unknown services; Check answers NOT_FOUND instead.
        public static let serviceUnknown = ServingStatus(rawValue: 3)

        public static let protoNames = ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"]
    }
}
