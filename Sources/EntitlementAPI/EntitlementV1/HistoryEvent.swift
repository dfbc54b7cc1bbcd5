import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.HistoryEvent`: one thing that happened to a user's purchase.
    ///
    /// Times are ms since the Unix epoch; ``expiresAtMs`` is 0 when the event has no period end.
    public struct HistoryEvent: ProtobufSchemaMessage {
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

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.eventID),
            .enumeration(2, \.type),
            .int64(3, \.occurredAtMs),
            .string(4, \.productID),
            .string(5, \.transactionID),
            .string(6, \.originalTransactionID),
            .int64(7, \.expiresAtMs),
            .enumeration(8, \.environment),
            .enumeration(9, \.source),
            .string(10, \.appleNotificationType),
            .string(11, \.actor),
            .string(12, \.reason),
        ]
    }
}
