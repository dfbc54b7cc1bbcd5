/// Which callers wait on which verification: the single-flight table ``ReceiptVerifier`` owns.
///
/// The gateway retries and users double-tap, so identical receipts arrive together and Apple is
/// asked once for all of them. A value whose transitions hand back what to resume or cancel, so
/// the actor acts only once its state is consistent, and each rule is tested without tasks.
/// Every waiter leaves the table exactly once: by ``leave(_:)`` (its caller gave up) or by
/// ``finish(_:)`` (the result is in), never both, so none is resumed twice or forgotten.
///
/// A flight whose last caller left is abandoned: unlisted at once and its work cancelled, so a
/// caller arriving next (a client retrying after its deadline) starts live work instead of
/// inheriting that cancellation.
struct VerificationFlights {
    typealias Waiter = CheckedContinuation<VerifiedReceipt, any Error>

    /// One caller's place. Flights of one key are told apart by id: an abandoned flight's work
    /// may still finish after a newer flight for the same receipt started.
    struct Seat: Hashable, Sendable {
        let key: String
        let flight: UInt64
        let member: UInt64
    }

    private struct Flight {
        let id: UInt64
        /// Callers that joined and have not left; nil until the caller's continuation exists.
        var members: [UInt64: Waiter?] = [:]
        var work: Task<Void, Never>?
    }

    private var flights: [String: Flight] = [:]
    private var lastID: UInt64 = 0

    /// Flights running now.
    var count: Int { flights.count }

    /// Callers sharing the live flight for `key` (0 when none runs).
    func callers(for key: String) -> Int { flights[key]?.members.count ?? 0 }

    /// Joins the live flight for `key`, or opens one (`isNew`: the caller must start its work).
    mutating func join(_ key: String) -> (seat: Seat, isNew: Bool) {
        lastID += 1
        if flights[key] != nil {
            flights[key]!.members[lastID] = .some(nil)
            return (Seat(key: key, flight: flights[key]!.id, member: lastID), false)
        }
        let flightID = lastID
        lastID += 1
        flights[key] = Flight(id: flightID, members: [lastID: nil])
        return (Seat(key: key, flight: flightID, member: lastID), true)
    }

    /// Records the task doing a new flight's work, which is cancelled if every caller leaves.
    mutating func started(_ work: Task<Void, Never>, for seat: Seat) {
        guard flights[seat.key]?.id == seat.flight else { return work.cancel() }
        flights[seat.key]!.work = work
    }

    /// Parks `waiter` in its seat; hands it back when the seat is gone (its caller already
    /// left), for the caller to resume with CancellationError.
    mutating func wait(_ seat: Seat, _ waiter: Waiter) -> Waiter? {
        guard flights[seat.key]?.id == seat.flight, flights[seat.key]!.members[seat.member] != nil else {
            return waiter
        }
        flights[seat.key]!.members[seat.member] = waiter
        return nil
    }

    /// Empties `seat`: returns its waiter (to resume with CancellationError) and, when it was
    /// the flight's last caller, the work to cancel.
    mutating func leave(_ seat: Seat) -> (waiter: Waiter?, abandoned: Task<Void, Never>?) {
        guard var flight = flights[seat.key], flight.id == seat.flight,
              let waiter = flight.members.removeValue(forKey: seat.member) else { return (nil, nil) }
        guard flight.members.isEmpty else {
            flights[seat.key] = flight
            return (waiter, nil)
        }
        flights[seat.key] = nil
        return (waiter, flight.work)
    }

    /// Closes the flight `seat` belongs to and returns every waiter, to resume with its result.
    /// Nothing for a flight already abandoned.
    mutating func finish(_ seat: Seat) -> [Waiter] {
        guard let flight = flights[seat.key], flight.id == seat.flight else { return [] }
        flights[seat.key] = nil
        return flight.members.values.compactMap { $0 }
    }
}
