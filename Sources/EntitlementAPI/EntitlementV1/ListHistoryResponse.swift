import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.ListHistoryResponse`: events newest first, and where to continue.
    public struct ListHistoryResponse: ProtobufMessage {
        public var events: [HistoryEvent] = []
        /// Empty when this is the last page.
        public var nextPageToken: String = ""

        public init() {}

        public init(events: [HistoryEvent] = [], nextPageToken: String = "") {
            self.events = events
            self.nextPageToken = nextPageToken
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): events.append(try reader.readMessage())
                case (2, .lengthDelimited): nextPageToken = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            for event in events {
                writer.writeMessage(event, field: 1)
            }
            writer.writeString(nextPageToken, field: 2)
        }
    }
}
