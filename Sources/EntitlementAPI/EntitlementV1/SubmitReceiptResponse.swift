import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.SubmitReceiptResponse`: what Apple said and where the user now stands.
    public struct SubmitReceiptResponse: ProtobufSchemaMessage {
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

        public static let schema: [ProtobufSchemaField<Self>] = [
            .enumeration(1, \.environment),
            .repeatedMessage(2, \.entitlements),
            .int32(3, \.newTransactions),
            .int32(4, \.appleStatus),
        ]
    }
}
