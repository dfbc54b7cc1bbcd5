import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.ListHistoryResponse`: events newest first, and where to continue.
    public struct ListHistoryResponse: ProtobufSchemaMessage {
        public var events: [HistoryEvent] = []
        /// Empty when this is the last page.
        public var nextPageToken: String = ""

        public init() {}

        public init(events: [HistoryEvent] = [], nextPageToken: String = "") {
            self.events = events
            self.nextPageToken = nextPageToken
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .repeatedMessage(1, \.events),
            .string(2, \.nextPageToken),
        ]
    }
}
