import ProtobufWire

/// Messages of `entitlementd.testing.v1`, the test-only service (see Protos/).
public enum TestingV1 {
    public struct SleepRequest: ProtobufSchemaMessage {
        public var milliseconds: Int32 = 0
        public init() {}
        public static let schema: [ProtobufSchemaField<Self>] = [.int32(1, \.milliseconds)]
    }

    public struct SleepResponse: ProtobufSchemaMessage {
        public init() {}
        public static let schema: [ProtobufSchemaField<Self>] = []
    }

    public struct SeedRequest: ProtobufSchemaMessage {
        public var userID = ""
        public var factsJSON = ""
        public init() {}
        public static let schema: [ProtobufSchemaField<Self>] = [.string(1, \.userID), .string(2, \.factsJSON)]
    }

    public struct SeedResponse: ProtobufSchemaMessage {
        public var newTransactions: Int32 = 0
        public init() {}
        public init(newTransactions: Int32) { self.newTransactions = newTransactions }
        public static let schema: [ProtobufSchemaField<Self>] = [.int32(1, \.newTransactions)]
    }
}
