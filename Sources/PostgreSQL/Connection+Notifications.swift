internal import CPostgreSQL
import Glibc

/// LISTEN/NOTIFY: how replicas tell each other what changed.
///
/// A listening connection should do nothing else: ``waitForNotifications(timeoutMs:)`` blocks
/// its thread. When the connection drops, the wait throws ``PostgreSQLError/Kind/connectionLost``
/// (notifications sent meanwhile are lost: the caller must assume anything changed); the next
/// call reconnects and listens to the same channels again.
extension Connection {
    /// Subscribes this session to `channel` (kept across reconnects).
    public func listen(_ channel: String) throws(PostgreSQLError) {
        try execute("LISTEN " + Self.quotedIdentifier(channel))
        if !listeningChannels.contains(channel) { listeningChannels.append(channel) }
    }

    /// Ends the subscription to `channel`.
    public func unlisten(_ channel: String) throws(PostgreSQLError) {
        listeningChannels.removeAll { $0 == channel }
        try execute("UNLISTEN " + Self.quotedIdentifier(channel))
    }

    /// Sends `payload` on `channel`; inside a transaction it is delivered at commit, if any.
    public func notify(channel: String, payload: String) throws(PostgreSQLError) {
        let statement = try prepare("SELECT pg_notify(?1, ?2)")
        statement.bind(channel, at: 1)
        statement.bind(payload, at: 2)
        try statement.execute()
    }

    /// The notifications that arrived, waiting up to `timeoutMs` for the first (0: just look).
    /// Returns an empty array on timeout; throws when the connection is (or becomes) unusable.
    public func waitForNotifications(timeoutMs: Int32) throws(PostgreSQLError) -> [(channel: String, payload: String)] {
        try ensureConnected()
        try consumeInput()
        var received = drainNotifications()
        let deadline = monotonicMilliseconds() + Int64(max(0, timeoutMs))
        while received.isEmpty {
            let remaining = deadline - monotonicMilliseconds()
            guard remaining > 0 else { break }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard descriptor.fd >= 0 else { throw lostWhileListening("no socket") }
            let ready = poll(&descriptor, 1, Int32(min(remaining, Int64(Int32.max))))
            if ready < 0 && errno != EINTR { throw lostWhileListening("poll failed, errno \(errno)") }
            guard ready > 0 else { continue }
            try consumeInput()
            received = drainNotifications()
        }
        return received
    }

    /// Reads whatever the server sent; a closed socket marks the connection bad.
    private func consumeInput() throws(PostgreSQLError) {
        guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
            throw lostWhileListening(String(cString: PQerrorMessage(handle)).trimmed)
        }
    }

    private func drainNotifications() -> [(channel: String, payload: String)] {
        var received: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            received.append((String(cString: notification.pointee.relname),
                             String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return received
    }

    private func lostWhileListening(_ detail: String) -> PostgreSQLError {
        PostgreSQLError(kind: .connectionLost, sqlState: nil,
                        message: "the listening connection to \(url.redacted) dropped (\(detail)); "
                            + "notifications may have been missed, the next wait reconnects")
    }
}

func monotonicMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
}
