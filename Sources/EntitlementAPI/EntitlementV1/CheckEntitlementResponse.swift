import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.CheckEntitlementResponse`: the verdict and the entitlements behind it.
    ///
    /// Hand-written, not a ``ProtobufSchemaMessage``: every CheckEntitlement call encodes one.
    public struct CheckEntitlementResponse: ProtobufMessage {
        /// True when any entitlement matching the request's filters grants access.
        public var active: Bool = false
        /// Every matching entitlement, active or not, so a client can explain the verdict.
        public var entitlements: [Entitlement] = []
        /// The instant the verdict holds for, ms since the Unix epoch.
        public var evaluatedAtMs: Int64 = 0

        public init() {}

        public init(active: Bool = false, entitlements: [Entitlement] = [], evaluatedAtMs: Int64 = 0) {
            self.active = active
            self.entitlements = entitlements
            self.evaluatedAtMs = evaluatedAtMs
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .varint): active = try reader.readBool()
                case (2, .lengthDelimited): entitlements.append(try reader.readMessage())
                case (3, .varint): evaluatedAtMs = try reader.readInt64()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeBool(active, field: 1)
            // Through a buffer pointer, whose elements are read in place: `for entitlement in`
            // (or `entitlements[i]`) copies each element out, a retain and release per string,
            // on CheckEntitlement's hot path.
            entitlements.withUnsafeBufferPointer { elements in
                for index in elements.indices {
                    writer.writeLengthDelimited(field: 2) { elements[index].encode(to: &$0) }
                }
            }
            writer.writeInt64(evaluatedAtMs, field: 3)
        }
    }
}
