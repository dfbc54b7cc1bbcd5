import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.HistoryEvent`: one thing that happened to a user's purchase.
    ///
    /// Times are ms since the Unix epoch; ``expiresAtMs`` is 0 when the event has no period end.
    public struct HistoryEvent: ProtobufMessage {
        /// The server's stable identifier for the event.
        public var eventID: String = ""
        public var type: EventType = .unspecified
        public var occurredAtMs: Int64 = 0
        public var productID: String = ""
        /// Empty for events without a transaction of their own (auto-renew status changes).
        public var transactionID: String = ""
        public var originalTransactionID: String = ""
        public var expiresAtMs: Int64 = 0
        public var environment: Environment = .unspecified
        public var source: EventSource = .unspecified
        /// The notification that reported or confirmed the event ("DID_RENEW",
        /// "DID_RENEW/BILLING_RECOVERY"), for diagnostics; empty when only receipts reported it.
        public var appleNotificationType: String = ""
        /// Who did it, for events an operator caused; empty otherwise.
        public var actor: String = ""
        /// Why, in words (the account a purchase moved to, or whose claim was refused).
        public var reason: String = ""

        public init() {}

        public init(
            eventID: String = "",
            type: EventType = .unspecified,
            occurredAtMs: Int64 = 0,
            productID: String = "",
            transactionID: String = "",
            originalTransactionID: String = "",
            expiresAtMs: Int64 = 0,
            environment: Environment = .unspecified,
            source: EventSource = .unspecified,
            appleNotificationType: String = ""
        ) {
            self.eventID = eventID
            self.type = type
            self.occurredAtMs = occurredAtMs
            self.productID = productID
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID
            self.expiresAtMs = expiresAtMs
            self.environment = environment
            self.source = source
            self.appleNotificationType = appleNotificationType
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): eventID = try reader.readString()
                case (2, .varint): type = EventType(rawValue: try reader.readEnum())
                case (3, .varint): occurredAtMs = try reader.readInt64()
                case (4, .lengthDelimited): productID = try reader.readString()
                case (5, .lengthDelimited): transactionID = try reader.readString()
                case (6, .lengthDelimited): originalTransactionID = try reader.readString()
                case (7, .varint): expiresAtMs = try reader.readInt64()
                case (8, .varint): environment = Environment(rawValue: try reader.readEnum())
                case (9, .varint): source = EventSource(rawValue: try reader.readEnum())
                case (10, .lengthDelimited): appleNotificationType = try reader.readString()
                case (11, .lengthDelimited): actor = try reader.readString()
                case (12, .lengthDelimited): reason = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(eventID, field: 1)
            writer.writeEnum(type, field: 2)
            writer.writeInt64(occurredAtMs, field: 3)
            writer.writeString(productID, field: 4)
            writer.writeString(transactionID, field: 5)
            writer.writeString(originalTransactionID, field: 6)
            writer.writeInt64(expiresAtMs, field: 7)
            writer.writeEnum(environment, field: 8)
            writer.writeEnum(source, field: 9)
            writer.writeString(appleNotificationType, field: 10)
            writer.writeString(actor, field: 11)
            writer.writeString(reason, field: 12)
        }
    }
}
