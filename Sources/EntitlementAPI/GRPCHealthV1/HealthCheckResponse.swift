import ProtobufWire

extension GRPCHealthV1 {
    /// `grpc.health.v1.HealthCheckResponse`: the serving status of the checked service.
    public struct HealthCheckResponse: ProtobufMessage {
        /// The proto nests the enum in this message; the Swift type lives one level up.
        public typealias ServingStatus = GRPCHealthV1.ServingStatus

        public var status: ServingStatus = .unknown

        public init() {}

        public init(status: ServingStatus) {
            self.status = status
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .varint): status = ServingStatus(rawValue: try reader.readEnum())
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeEnum(status, field: 1)
        }
    }
}
