import StorageCore
/// What one replica tells the others through NOTIFY, and its payload format.
///
/// Users: the sender's replica id, then one user id per line; a user id that cannot travel on a
/// line of its own (it holds a newline, or alone exceeds a payload) turns the message into
/// "everyone" (`*`), which only costs cache misses. Changes: the replica id, a space, the newest
/// sequence. Payloads stay under pg_notify's 8000 bytes: users split into several notifications.
struct ReplicaNotification: Equatable {
    enum Content: Equatable {
        case users([String])
        case allUsers
        case latestSequence(Int64)
    }

    var replicaID: String
    var content: Content

    init(replicaID: String, content: Content) {
        self.replicaID = replicaID
        self.content = content
    }

    /// The (channel, payload) pairs announcing `users` (`nil`: everyone), each under `maxBytes`.
    static func usersPayloads(replicaID: String, users: [String]?, maxBytes: Int) -> [String] {
        let header = replicaID + "\n"
        guard let users,
              !users.contains(where: { $0.contains("\n") || $0 == "*" || header.utf8.count + $0.utf8.count > maxBytes })
        else { return [header + "*"] }
        var payloads: [String] = []
        var current = header
        for user in users.sorted() {
            let needed = (current == header ? 0 : 1) + user.utf8.count
            if current != header && current.utf8.count + needed > maxBytes {
                payloads.append(current)
                current = header
            }
            current += (current == header ? "" : "\n") + user
        }
        if current != header { payloads.append(current) }
        return payloads
    }

    static func changesPayload(replicaID: String, latestSequence: Int64) -> String {
        "\(replicaID) \(latestSequence)"
    }

    /// Parses a received notification; `nil` for a channel or payload it does not know.
    init?(channel: String, payload: String) {
        switch channel {
        case ChangeListener.usersChannel:
            let lines = payload.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let first = lines.first, lines.count >= 2 else { return nil }
            replicaID = first
            let users = Array(lines.dropFirst())
            content = users == ["*"] ? .allUsers : .users(users)
        case ChangeListener.changesChannel:
            let parts = payload.split(separator: " ")
            guard parts.count == 2, let sequence = Int64(parts[1]) else { return nil }
            replicaID = String(parts[0])
            content = .latestSequence(sequence)
        default:
            return nil
        }
    }
}
