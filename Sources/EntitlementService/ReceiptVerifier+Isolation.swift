extension ReceiptVerifier {
    /// `work`'s result for `key`: started now, or joined when a flight for it is running.
    ///
    /// The work runs in its own task, off this actor, so the first caller's cancellation ends
    /// only its own wait; the work is cancelled when no caller is left. Joining and parking the
    /// caller happen in one turn of the actor (no suspension between them), and a caller's
    /// cancellation reaches the table through the actor too, so it is ordered after that turn.
    func shared(_ key: String,
                _ work: @escaping @Sendable () async throws -> VerifiedReceipt) async throws -> VerifiedReceipt {
        let (seat, isNew) = flights.join(key)
        if isNew {
            let task = Task.detached(priority: Task.currentPriority) { [self] in
                let result: Result<VerifiedReceipt, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                await land(seat, result)
            }
            flights.started(task, for: seat)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                flights.wait(seat, continuation)?.resume(throwing: CancellationError())
            }
        } onCancel: {
            Task { await self.leave(seat) }
        }
    }

    /// Callers sharing the live flight for `key` (0 when none runs), for tests.
    func callers(for key: String) -> Int { flights.callers(for: key) }

    private func leave(_ seat: VerificationFlights.Seat) {
        let (waiter, abandoned) = flights.leave(seat)
        waiter?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }

    private func land(_ seat: VerificationFlights.Seat, _ result: Result<VerifiedReceipt, any Error>) {
        for waiter in flights.finish(seat) { waiter.resume(with: result) }
    }

    /// Runs `body` holding one of the permits that bound concurrent calls to Apple; the caller
    /// waits its turn (first come, first served) and gives it back on every path.
    nonisolated func withPermit<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquirePermit()
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        await releasePermit()
        return try result.get()
    }

    /// Waits for a permit; throws CancellationError, holding none, if the caller gives up first.
    private func acquirePermit() async throws {
        guard let ticket = permits.acquire() else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                permits.enqueue(ticket, continuation)
            }
        } onCancel: {
            Task { await self.withdraw(ticket) }
        }
    }

    private func releasePermit() {
        permits.release()?.resume()
    }

    private func withdraw(_ ticket: UInt64) {
        permits.withdraw(ticket)?.resume(throwing: CancellationError())
    }

    /// Callers waiting for a permit now, for tests.
    var queuedForPermits: Int { permits.queued }
}
