import ProtobufWire

extension GRPCHealthV1 {
    /// `grpc.health.v1.HealthCheckRequest`: which service to check.
    public struct HealthCheckRequest: ProtobufMessage {
        /// A fully qualified service name, e.g. "entitlement.v1.EntitlementService"; empty means
        /// the server as a whole.
        public var service: String = ""

        public init() {}

        public init(service: String) {
            self.service = service
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): service = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(service, field: 1)
        }
    }
}
