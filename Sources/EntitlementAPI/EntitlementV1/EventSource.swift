import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.EventSource`: how the server learned of a history event.
    ///
    /// Open like every proto3 enum: unknown numbers are kept, not rejected.
    public struct EventSource: ProtobufNamedEnum {
        public var rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        public static let unspecified = EventSource(rawValue: 0)
        public static let receipt = EventSource(rawValue: 1)
        public static let notificationV1 = EventSource(rawValue: 2)
        public static let notificationV2 = EventSource(rawValue: 3)
        public static let serverAPI = EventSource(rawValue: 4)
        public static let `operator` = EventSource(rawValue: 5)

        public static let protoNames = [
            "EVENT_SOURCE_UNSPECIFIED", "EVENT_SOURCE_RECEIPT", "EVENT_SOURCE_NOTIFICATION_V1",
            "EVENT_SOURCE_NOTIFICATION_V2", "EVENT_SOURCE_SERVER_API", "EVENT_SOURCE_OPERATOR",
        ]
    }
}
