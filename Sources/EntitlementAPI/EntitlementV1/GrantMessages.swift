import ProtobufWire

extension EntitlementV1 {
    /// `entitlement.v1.GrantEntitlementRequest`: give a user an entitlement by hand.
    public struct GrantEntitlementRequest: ProtobufSchemaMessage {
        public var userID: String = ""
        public var entitlementID: String = ""
        /// 0 means now.
        public var startsAtMs: Int64 = 0
        public var expiresAtMs: Int64 = 0
        public var reason: String = ""
        public var idempotencyKey: String = ""

        public init() {}

        public init(
            userID: String, entitlementID: String, startsAtMs: Int64 = 0, expiresAtMs: Int64,
            reason: String, idempotencyKey: String = ""
        ) {
            self.userID = userID
            self.entitlementID = entitlementID
            self.startsAtMs = startsAtMs
            self.expiresAtMs = expiresAtMs
            self.reason = reason
            self.idempotencyKey = idempotencyKey
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.userID),
            .string(2, \.entitlementID),
            .int64(3, \.startsAtMs),
            .int64(4, \.expiresAtMs),
            .string(5, \.reason),
            .string(6, \.idempotencyKey),
        ]
    }

    /// `entitlement.v1.GrantEntitlementResponse`: the grant as CheckEntitlement answers it.
    public struct GrantEntitlementResponse: ProtobufSchemaMessage {
        public var entitlement: Entitlement?
        public var grantID: String = ""

        public init() {}

        public init(entitlement: Entitlement, grantID: String) {
            self.entitlement = entitlement
            self.grantID = grantID
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .message(1, \.entitlement),
            .string(2, \.grantID),
        ]
    }

    /// `entitlement.v1.RevokeGrantRequest`: end a grant now.
    public struct RevokeGrantRequest: ProtobufSchemaMessage {
        public var userID: String = ""
        public var grantID: String = ""
        public var reason: String = ""

        public init() {}

        public init(userID: String, grantID: String, reason: String) {
            self.userID = userID
            self.grantID = grantID
            self.reason = reason
        }

        public static let schema: [ProtobufSchemaField<Self>] = [
            .string(1, \.userID),
            .string(2, \.grantID),
            .string(3, \.reason),
        ]
    }

    /// `entitlement.v1.RevokeGrantResponse`: the grant after its revocation.
    public struct RevokeGrantResponse: ProtobufSchemaMessage {
        public var entitlement: Entitlement?

        public init() {}

        public init(entitlement: Entitlement) { self.entitlement = entitlement }

        public static let schema: [ProtobufSchemaField<Self>] = [.message(1, \.entitlement)]
    }
}
