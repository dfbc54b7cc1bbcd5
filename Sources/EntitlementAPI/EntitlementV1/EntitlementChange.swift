import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.EntitlementChange`: one entitlement whose state or active flag changed,
    /// as WatchEntitlementChanges (and the webhooks) deliver it.
    public struct EntitlementChange: ProtobufMessage {
        /// Opaque, strictly increasing; resume after it with `after_cursor`.
        public var cursor: String = ""
        public var changeID: String = ""
        public var userID: String = ""
        /// The entitlement after the change; `nil` only if a peer omitted it.
        public var entitlement: Entitlement?
        /// `.unspecified` for a first appearance.
        public var previousState: EntitlementState = .unspecified
        public var occurredAtMs: Int64 = 0
        /// Empty for changes time alone caused.
        public var causeEventID: String = ""

        public init() {}

        public init(cursor: String = "", changeID: String = "", userID: String = "", entitlement: Entitlement? = nil,
                    previousState: EntitlementState = .unspecified, occurredAtMs: Int64 = 0,
                    causeEventID: String = "") {
            self.cursor = cursor
            self.changeID = changeID
            self.userID = userID
            self.entitlement = entitlement
            self.previousState = previousState
            self.occurredAtMs = occurredAtMs
            self.causeEventID = causeEventID
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): cursor = try reader.readString()
                case (2, .lengthDelimited): changeID = try reader.readString()
                case (3, .lengthDelimited): userID = try reader.readString()
                case (4, .lengthDelimited): entitlement = try reader.readMessage() as Entitlement
                case (5, .varint): previousState = EntitlementState(rawValue: try reader.readEnum())
                case (6, .varint): occurredAtMs = try reader.readInt64()
                case (7, .lengthDelimited): causeEventID = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(cursor, field: 1)
            writer.writeString(changeID, field: 2)
            writer.writeString(userID, field: 3)
            if let entitlement {
                writer.writeMessage(entitlement, field: 4)
            }
            writer.writeEnum(previousState, field: 5)
            writer.writeInt64(occurredAtMs, field: 6)
            writer.writeString(causeEventID, field: 7)
        }
    }
}
