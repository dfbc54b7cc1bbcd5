/// A body posted to the notification webhook, told apart and decoded in one JSON pass.
///
/// Version 2 is an envelope whose `signedPayload` must verify before anything inside it is read,
/// so it stays a compact JWS here. Anything else is read as version 1 (unsigned JSON), whose only
/// authenticity check, the `password`, is the caller's to make.
public enum NotificationBody: Sendable, Hashable {
    /// `{"signedPayload": "<compact JWS>"}`.
    case v2(signedPayload: String)
    case v1(NotificationV1)

    /// Decodes a webhook body; a body that is not a V2 envelope fails with V1's format error.
    ///
    /// `receivedAtMs` stamps a V1 notification's renewal infos (see ``NotificationV1/parse(_:receivedAtMs:)``).
    public static func decode(_ body: [UInt8], receivedAtMs: Int64) throws(AppStoreFormatError) -> NotificationBody {
        let root = try AppleJSONObject.parse(body)
        // Read raw, not through the tolerant readers (which take "" for absent): an empty
        // signedPayload is still a V2 envelope, refused when it does not verify.
        if let signedPayload = root.rawString("signedPayload") {
            return .v2(signedPayload: signedPayload)
        }
        return .v1(try NotificationV1.decode(root, receivedAtMs: receivedAtMs))
    }
}
