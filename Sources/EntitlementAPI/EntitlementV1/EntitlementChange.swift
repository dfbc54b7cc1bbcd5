import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.EntitlementChange`: one entitlement whose state or active flag changed,
    /// as WatchEntitlementChanges (and the webhooks) deliver it.
    public struct EntitlementChange: ProtobufSchemaMessage {
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

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.cursor),
            .string(2, \.changeID),
            .string(3, \.userID),
            .message(4, \.entitlement),
            .enumeration(5, \.previousState),
            .int64(6, \.occurredAtMs),
            .string(7, \.causeEventID),
        ]
    }
}
