import RPCCore

/// The `cursor` of an `EntitlementChange`: the change log's sequence, in a form clients store
/// and hand back but do not build.
///
/// Format `c1.` + the sequence as 16 lowercase hex digits. The `c1.` names the format, so a
/// later one (another store, several shards) can be told apart and old cursors still read;
/// fixed-width lowercase hex makes cursors sort as strings in the order of their changes, so a
/// consumer comparing the cursors it saw on the stream and on webhooks needs no decoding.
/// Webhook bodies and `entitlementctl webhooks replay --from` use the same encoding.
public enum ChangeCursor {
    static let prefix = "c1."

    public static func encode(_ sequence: Int64) -> String {
        let hex = String(UInt64(bitPattern: sequence), radix: 16)
        return prefix + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The sequence `cursor` encodes, or nil when it is not a cursor this server issues.
    public static func decode(_ cursor: String) -> Int64? {
        let utf8 = cursor.utf8
        guard utf8.count == prefix.utf8.count + 16, utf8.starts(with: prefix.utf8) else { return nil }
        var value: UInt64 = 0
        for byte in utf8.dropFirst(prefix.utf8.count) {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt64(byte - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        guard value <= UInt64(Int64.max) else { return nil }
        return Int64(value)
    }

    /// Where a watch starts: after `afterCursor`'s change, or after the newest change when it
    /// is empty. Throws INVALID_ARGUMENT for a malformed cursor and OUT_OF_RANGE for one whose
    /// following changes are no longer all retained (or that this server's log never reached).
    public static func startingPoint(_ afterCursor: String, oldestRetained: Int64, latest: Int64) throws -> Int64 {
        if afterCursor.isEmpty { return latest }
        guard let sequence = decode(afterCursor) else {
            throw RPCError(.invalidArgument,
                           "after_cursor '\(afterCursor)' is not a cursor this server issued; send the cursor of a "
                               + "change you received, or an empty one to start from now")
        }
        if sequence < oldestRetained - 1 {
            throw RPCError(.outOfRange,
                           "after_cursor is older than the server's change retention (the oldest retained change "
                               + "is \(encode(oldestRetained))); re-read current state with CheckEntitlement, then "
                               + "watch with an empty after_cursor")
        }
        if sequence > latest {
            throw RPCError(.outOfRange,
                           "after_cursor is ahead of this server's change log (newest \(encode(latest))): it comes "
                               + "from another server or a database restored from an older backup; re-read state "
                               + "with CheckEntitlement, then watch with an empty after_cursor")
        }
        return sequence
    }
}
