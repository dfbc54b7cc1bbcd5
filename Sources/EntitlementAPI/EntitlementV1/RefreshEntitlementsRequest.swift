import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.RefreshEntitlementsRequest`: ask Apple (the App Store Server API) about
    /// every chain a user owns and record what is new.
    public struct RefreshEntitlementsRequest: ProtobufMessage {
        public var userID: String = ""

        public init() {}

        public init(userID: String) { self.userID = userID }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): userID = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(userID, field: 1)
        }
    }
}
