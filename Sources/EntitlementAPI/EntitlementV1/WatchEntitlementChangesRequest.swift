import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.WatchEntitlementChangesRequest`: which changes to stream, and from where.
    public struct WatchEntitlementChangesRequest: ProtobufSchemaMessage {
        /// Empty: only changes from now on; otherwise resume after this change's cursor.
        public var afterCursor: String = ""
        /// Only this user's changes; empty for every user.
        public var userID: String = ""

        public init() {}

        public init(afterCursor: String = "", userID: String = "") {
            self.afterCursor = afterCursor
            self.userID = userID
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.afterCursor),
            .string(2, \.userID),
        ]
    }
}
