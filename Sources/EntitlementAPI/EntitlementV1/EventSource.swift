import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.EventSource`: how the server learned of a history event.
    ///
    /// Open like every proto3 enum: unknown numbers are kept, not rejected.
    public struct EventSource: ProtobufEnum, CustomStringConvertible {
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

        public var description: String {
            switch self {
            case .unspecified: "EVENT_SOURCE_UNSPECIFIED"
            case .receipt: "EVENT_SOURCE_RECEIPT"
            case .notificationV1: "EVENT_SOURCE_NOTIFICATION_V1"
            case .notificationV2: "EVENT_SOURCE_NOTIFICATION_V2"
            case .serverAPI: "EVENT_SOURCE_SERVER_API"
            case .operator: "EVENT_SOURCE_OPERATOR"
            default: "EventSource(\(rawValue))"
            }
        }
    }
}
