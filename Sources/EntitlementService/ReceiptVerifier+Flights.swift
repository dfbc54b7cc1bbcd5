/// One verification in progress and the callers waiting for its answer.
///
/// Touched only in the ``ReceiptVerifier``'s isolation, so it needs no lock and is not
/// Sendable. The id tells a flight from a later one for the same receipt, since the work's end
/// and a caller's cancellation reach the actor later, through a task, and must not act on a
/// flight started after theirs.
final class ReceiptFlight {
    let id: UInt64
    var waiters: [UInt64: CheckedContinuation<VerifiedReceipt, any Error>] = [:]
    var lastWaiter: UInt64 = 0
    var work: Task<Void, Never>?

    init(id: UInt64) { self.id = id }
}

@available(*, unavailable)
extension ReceiptFlight: Sendable {}

extension ReceiptVerifier {
    /// The verification of `receiptData`, joined if one for `sha256` is in flight, else started.
    ///
    /// The gateway retries and users double-tap, so identical receipts arrive together; Apple is
    /// called once for all of them. Each caller can give up on its own (cancellation) without
    /// stopping the shared work, which is cancelled only when no caller is left. Such a flight is
    /// unlisted at once: a caller arriving then (typically a client retrying right after its
    /// deadline) must not inherit that cancellation, so it starts a new flight instead of joining.
    func shared(_ sha256: String, receiptData: String) async throws -> VerifiedReceipt {
        try Task.checkCancellation()
        let flight = flights[sha256] ?? startFlight(sha256, receiptData: receiptData)
        flight.lastWaiter += 1
        let waiter = flight.lastWaiter
        let flightID = flight.id
        // No suspension between joining and waiting: the continuation is registered before any
        // other call runs on the actor, the cancellation handler's task included.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                flight.waiters[waiter] = continuation
            }
        } onCancel: {
            Task { await self.leave(sha256, flightID: flightID, waiter: waiter) }
        }
    }

    /// Callers sharing the live flight for `sha256` (0 when none runs), for tests and metrics.
    public func callers(sharing sha256: String) -> Int {
        flights[sha256]?.waiters.count ?? 0
    }

    /// Distinct receipts being verified now, for tests and metrics.
    public var flightsInProgress: Int { flights.count }

    private func startFlight(_ sha256: String, receiptData: String) -> ReceiptFlight {
        lastFlightID += 1
        let flightID = lastFlightID
        let flight = ReceiptFlight(id: flightID)
        flights[sha256] = flight
        flight.work = fly(sha256, flightID: flightID, receiptData: receiptData)
        return flight
    }

    /// The flight's work, a task started from nonisolated code so that it begins on the
    /// cooperative pool rather than queueing on the actor; it enters only to hand out the answer.
    private nonisolated func fly(_ sha256: String, flightID: UInt64, receiptData: String) -> Task<Void, Never> {
        Task {
            let result: Result<VerifiedReceipt, any Error>
            do { result = .success(try await verifyOnce(receiptData: receiptData)) } catch { result = .failure(error) }
            await finish(sha256, flightID: flightID, result)
        }
    }

    private func finish(_ sha256: String, flightID: UInt64, _ result: Result<VerifiedReceipt, any Error>) {
        // Abandoned (every caller left) or already replaced: nobody waits for this answer.
        guard let flight = flights[sha256], flight.id == flightID else { return }
        flights[sha256] = nil
        let waiters = flight.waiters.values
        flight.waiters.removeAll()
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func leave(_ sha256: String, flightID: UInt64, waiter: UInt64) {
        guard let flight = flights[sha256], flight.id == flightID,
              let continuation = flight.waiters.removeValue(forKey: waiter) else { return }
        continuation.resume(throwing: CancellationError())
        guard flight.waiters.isEmpty else { return }
        flights[sha256] = nil
        flight.work?.cancel()
    }
}
