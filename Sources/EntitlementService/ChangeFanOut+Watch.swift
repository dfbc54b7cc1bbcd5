import EntitlementAPI
import EntitlementPorts
import RPCCore

/// One WatchEntitlementChanges call: validate the cursor, replay the log from it at the
/// client's pace, join the live fan-out at the seam, then stay until the call ends.
extension ChangeFanOut {
    /// Serves `WatchEntitlementChanges` from this fan-out.
    public func register(into router: inout RPCRouter) {
        router.registerServerStreaming(EntitlementRPCs.servicePrefix + "WatchEntitlementChanges") {
            (request: EntitlementV1.WatchEntitlementChangesRequest, _: RPCContext, stream: Stream) in
            try await self.watch(request, stream: stream)
        }
    }

    public func watch(_ request: EntitlementV1.WatchEntitlementChangesRequest, stream: Stream) async throws {
        let userID = request.userID.isEmpty ? nil : request.userID
        let bounds = try await read { try self.log.changeLogBounds() }
        var cursor = try ChangeCursor.startingPoint(
            request.afterCursor, oldestRetained: bounds.oldestRetained, latest: bounds.latest)
        let watcher = try register(userID: userID, stream: stream)
        defer { remove(watcher) }
        try stream.sendHeaders()
        while true {
            // Read before the page: the page then holds every change of this watcher's up to
            // at least `horizon`, so having sent it means having seen all through max(cursor, horizon).
            let horizon = state.withLock { $0.position }
            let after = cursor
            let page = try await read { try self.log.changes(after: after, userID: userID, limit: self.pageSize) }
            for change in page {
                try await stream.sendWhenReady(APIMapping.change(change))
                cursor = change.sequence
            }
            if page.count < pageSize, goLive(watcher, replayedThrough: max(cursor, horizon)) { break }
        }
        // Live: the fan-out sends from here on. The call ends by cancellation: the client left,
        // the deadline passed, or the fan-out ended it (end(with:) records the status).
        while true { try await Task.sleep(for: .seconds(3600)) }
    }

    /// Runs a blocking log read on the fan-out's thread; storage errors become gRPC status.
    func read<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = queue.post {
                continuation.resume(with: Result { try withStoreErrors(body) })
            }
            if !accepted { continuation.resume(throwing: ChangeFanOut.shuttingDown) }
        }
    }

    func register(userID: String?, stream: Stream) throws -> Watcher {
        let watcher = Watcher(userID: userID, stream: stream)
        try state.withLock { state in
            if state.shuttingDown { throw ChangeFanOut.shuttingDown }
            state.registered[ObjectIdentifier(watcher)] = watcher
        }
        return watcher
    }

    /// Makes `watcher` live when it has replayed at least up to the fan-out's position; false
    /// when the fan-out has moved on since (the watcher reads the log once more).
    func goLive(_ watcher: Watcher, replayedThrough sequence: Int64) -> Bool {
        state.withLock { state in
            guard sequence >= state.position else { return false }
            watcher.cursor = sequence
            state.live[watcher.userID, default: [:]][ObjectIdentifier(watcher)] = watcher
            return true
        }
    }

    func remove(_ watcher: Watcher) {
        state.withLock { state in
            let id = ObjectIdentifier(watcher)
            state.registered[id] = nil
            state.live[watcher.userID]?[id] = nil
            if state.live[watcher.userID]?.isEmpty == true { state.live[watcher.userID] = nil }
        }
    }
}
