/// Which notifications are being applied now, by source id: the in-flight table
/// ``NotificationIngestor`` owns.
///
/// Apple redelivers a notification it got no answer for, and a reconciliation run feeds Apple's
/// history through the same path, so one notification can arrive twice at once. The first
/// arrival applies it; the others wait for that write and are answered from it instead of
/// racing it for the same rows. A value whose transitions hand back who to resume, so the actor
/// resumes them once its state is consistent; an entry is settled exactly once, by its first
/// arrival, which no error skips.
struct NotificationsInFlight {
    typealias Waiter = CheckedContinuation<NotificationDisposition, Never>

    private var applying: [String: [Waiter]] = [:]

    /// Notifications being applied now.
    var count: Int { applying.count }

    /// Later arrivals waiting for the write of `id`.
    func waiting(for id: String) -> Int { applying[id]?.count ?? 0 }

    /// True when the caller is the first arrival of `id` and applies it (then settles it).
    mutating func claim(_ id: String) -> Bool {
        guard applying[id] == nil else { return false }
        applying[id] = []
        return true
    }

    /// Parks a later arrival until `id` is settled; hands it back when `id` is no longer in
    /// flight, for the caller to resume at once.
    mutating func wait(_ id: String, _ waiter: Waiter) -> Waiter? {
        guard applying[id] != nil else { return waiter }
        applying[id]!.append(waiter)
        return nil
    }

    /// Ends the write of `id`; returns its later arrivals, to answer with ``answer(after:)``.
    mutating func settle(_ id: String) -> [Waiter] {
        applying.removeValue(forKey: id) ?? []
    }

    /// What a later arrival is told once the first one's write ended: a duplicate of what was
    /// stored, or the same failure (Apple then retries it, and a later arrival applies afresh).
    static func answer(after disposition: NotificationDisposition) -> NotificationDisposition {
        switch disposition {
        case .accepted, .orphaned, .duplicate: return .duplicate
        case .test, .rejected, .retryLater, .failed: return disposition
        }
    }
}
