import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.SubmitReceiptResponse`: what Apple said and where the user now stands.
    public struct SubmitReceiptResponse: ProtobufMessage {
        public var environment: Environment = .unspecified
        /// The user's entitlements after recording the submission, evaluated now.
        public var entitlements: [Entitlement] = []
        /// Transactions recorded for the first time; 0 for a resubmission (the call is idempotent).
        public var newTransactions: Int32 = 0
        /// Apple's verifyReceipt status (0 = valid); 0 for StoreKit 2 signed transactions.
        public var appleStatus: Int32 = 0

        public init() {}

        public init(environment: Environment = .unspecified, entitlements: [Entitlement] = [],
                    newTransactions: Int32 = 0, appleStatus: Int32 = 0) {
            self.environment = environment
            self.entitlements = entitlements
            self.newTransactions = newTransactions
            self.appleStatus = appleStatus
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .varint): environment = Environment(rawValue: try reader.readEnum())
                case (2, .lengthDelimited): entitlements.append(try reader.readMessage())
                case (3, .varint): newTransactions = try reader.readInt32()
                case (4, .varint): appleStatus = try reader.readInt32()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeEnum(environment, field: 1)
            for entitlement in entitlements {
                writer.writeMessage(entitlement, field: 2)
            }
            writer.writeInt32(newTransactions, field: 3)
            writer.writeInt32(appleStatus, field: 4)
        }
    }
}
