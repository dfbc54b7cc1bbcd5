import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.WatchEntitlementChangesRequest`: which changes to stream, and from where.
    public struct WatchEntitlementChangesRequest: ProtobufMessage {
        /// Empty: only changes from now on; otherwise resume after this change's cursor.
        public var afterCursor: String = ""
        /// Only this user's changes; empty for every user.
        public var userID: String = ""

        public init() {}

        public init(afterCursor: String = "", userID: String = "") {
            self.afterCursor = afterCursor
            self.userID = userID
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): afterCursor = try reader.readString()
                case (2, .lengthDelimited): userID = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(afterCursor, field: 1)
            writer.writeString(userID, field: 2)
        }
    }
}
