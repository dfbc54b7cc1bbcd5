import ProtobufWire

/// Messages of `entitlementd.testing.v1`, the test-only service (see Protos/).
public enum TestingV1 {
    public struct SleepRequest: ProtobufMessage {
        public var milliseconds: Int32 = 0
        public init() {}
        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .varint): milliseconds = try reader.readInt32()
                default: try reader.skip(field)
                }
            }
        }
        public func encode(to writer: inout ProtobufWriter) { writer.writeInt32(milliseconds, field: 1) }
    }

    public struct SleepResponse: ProtobufMessage {
        public init() {}
        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() { try reader.skip(field) }
        }
        public func encode(to writer: inout ProtobufWriter) {}
    }

    public struct SeedRequest: ProtobufMessage {
        public var userID = ""
        public var factsJSON = ""
        public init() {}
        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): userID = try reader.readString()
                case (2, .lengthDelimited): factsJSON = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }
        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(userID, field: 1)
            writer.writeString(factsJSON, field: 2)
        }
    }

    public struct SeedResponse: ProtobufMessage {
        public var newTransactions: Int32 = 0
        public init() {}
        public init(newTransactions: Int32) { self.newTransactions = newTransactions }
        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .varint): newTransactions = try reader.readInt32()
                default: try reader.skip(field)
                }
            }
        }
        public func encode(to writer: inout ProtobufWriter) { writer.writeInt32(newTransactions, field: 1) }
    }
}
