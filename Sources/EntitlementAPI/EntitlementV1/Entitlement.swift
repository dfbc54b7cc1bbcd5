import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.Entitlement`: one product the user holds or held, as a caller sees it.
    ///
    /// For a subscription this is one chain (identified by its original transaction); for a
    /// one-time purchase, that purchase. Times are milliseconds since the Unix epoch, 0 when not
    /// applicable; see the proto for each field's contract.
    ///
    /// Hand-written, not a ``ProtobufSchemaMessage``: CheckEntitlement encodes one per
    /// entitlement it answers with, and other messages nest it.
    public struct Entitlement: ProtobufMessage {
        public var productID: String = ""
        public var originalTransactionID: String = ""
        public var state: EntitlementState = .unspecified
        /// True when ``state`` grants access; callers should read this, not interpret the state.
        public var active: Bool = false
        public var purchasedAtMs: Int64 = 0
        public var expiresAtMs: Int64 = 0
        public var gracePeriodExpiresAtMs: Int64 = 0
        public var willAutoRenew: Bool = false
        public var isTrialPeriod: Bool = false
        public var isInIntroOfferPeriod: Bool = false
        public var productType: ProductType = .unspecified
        public var subscriptionGroupID: String = ""
        public var environment: Environment = .unspecified
        public var latestTransactionID: String = ""
        public var entitlementID: String = ""
        /// The app account token Apple signed into the chain (lowercase UUID), or empty.
        public var appAccountToken: String = ""
        /// The grant behind a promotional entitlement (``ProductType/promotional``), or empty.
        public var grantID: String = ""

        public init() {}

        public init(
            productID: String = "",
            originalTransactionID: String = "",
            state: EntitlementState = .unspecified,
            active: Bool = false,
            purchasedAtMs: Int64 = 0,
            expiresAtMs: Int64 = 0,
            gracePeriodExpiresAtMs: Int64 = 0,
            willAutoRenew: Bool = false,
            isTrialPeriod: Bool = false,
            isInIntroOfferPeriod: Bool = false,
            productType: ProductType = .unspecified,
            subscriptionGroupID: String = "",
            environment: Environment = .unspecified,
            latestTransactionID: String = "",
            entitlementID: String = ""
        ) {
            self.productID = productID
            self.originalTransactionID = originalTransactionID
            self.state = state
            self.active = active
            self.purchasedAtMs = purchasedAtMs
            self.expiresAtMs = expiresAtMs
            self.gracePeriodExpiresAtMs = gracePeriodExpiresAtMs
            self.willAutoRenew = willAutoRenew
            self.isTrialPeriod = isTrialPeriod
            self.isInIntroOfferPeriod = isInIntroOfferPeriod
            self.productType = productType
            self.subscriptionGroupID = subscriptionGroupID
            self.environment = environment
            self.latestTransactionID = latestTransactionID
            self.entitlementID = entitlementID
        }

        public init(protobufBytes: ArraySlice<UInt8>) throws {
            var reader = ProtobufReader(protobufBytes)
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): productID = try reader.readString()
                case (2, .lengthDelimited): originalTransactionID = try reader.readString()
                case (3, .varint): state = EntitlementState(rawValue: try reader.readEnum())
                case (4, .varint): active = try reader.readBool()
                case (5, .varint): purchasedAtMs = try reader.readInt64()
                case (6, .varint): expiresAtMs = try reader.readInt64()
                case (7, .varint): gracePeriodExpiresAtMs = try reader.readInt64()
                case (8, .varint): willAutoRenew = try reader.readBool()
                case (9, .varint): isTrialPeriod = try reader.readBool()
                case (10, .varint): isInIntroOfferPeriod = try reader.readBool()
                case (11, .varint): productType = ProductType(rawValue: try reader.readEnum())
                case (12, .lengthDelimited): subscriptionGroupID = try reader.readString()
                case (13, .varint): environment = Environment(rawValue: try reader.readEnum())
                case (14, .lengthDelimited): latestTransactionID = try reader.readString()
                case (15, .lengthDelimited): entitlementID = try reader.readString()
                case (16, .lengthDelimited): grantID = try reader.readString()
                case (17, .lengthDelimited): appAccountToken = try reader.readString()
                default: try reader.skip(field)
                }
            }
        }

        public func encode(to writer: inout ProtobufWriter) {
            writer.writeString(productID, field: 1)
            writer.writeString(originalTransactionID, field: 2)
            writer.writeEnum(state, field: 3)
            writer.writeBool(active, field: 4)
            writer.writeInt64(purchasedAtMs, field: 5)
            writer.writeInt64(expiresAtMs, field: 6)
            writer.writeInt64(gracePeriodExpiresAtMs, field: 7)
            writer.writeBool(willAutoRenew, field: 8)
            writer.writeBool(isTrialPeriod, field: 9)
            writer.writeBool(isInIntroOfferPeriod, field: 10)
            writer.writeEnum(productType, field: 11)
            writer.writeString(subscriptionGroupID, field: 12)
            writer.writeEnum(environment, field: 13)
            writer.writeString(latestTransactionID, field: 14)
            writer.writeString(entitlementID, field: 15)
            writer.writeString(grantID, field: 16)
            writer.writeString(appAccountToken, field: 17)
        }
    }
}
