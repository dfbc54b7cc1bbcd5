import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.GetAppAccountTokenRequest`: whose app account token.
    public struct GetAppAccountTokenRequest: ProtobufMessage {
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

    /// `entitlement.v1.GetAppAccountTokenResponse`: the user's token, a lowercase UUID.
    public struct GetAppAccountTokenResponse: ProtobufMessage {
        public var appAccountToken: String = ""

        public init() {}

        public init(appAccountToken: String) { self.appAccountToken = appAccountToken }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): appAccountToken = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(appAccountToken, field: 1)
        }
    }
}
