extension NotificationIngestor {
    /// Nil when the caller is the first arrival of notification `id` and must apply it, then
    /// ``settle(_:_:)`` it; otherwise the answer the first arrival's write gives this one.
    ///
    /// A later arrival waits without a cancellation handler: the write it waits for is the
    /// store's group commit, bounded as every webhook answer is, and settled on every path.
    func admit(_ id: String) async -> NotificationDisposition? {
        guard !inFlight.claim(id) else { return nil }
        let disposition = await withCheckedContinuation { continuation in
            inFlight.wait(id, continuation)?.resume(returning: .retryLater)
        }
        return NotificationsInFlight.answer(after: disposition)
    }

    /// Ends the first arrival's write of `id` and answers every later arrival from it.
    func settle(_ id: String, _ disposition: NotificationDisposition) {
        for waiter in inFlight.settle(id) { waiter.resume(returning: disposition) }
    }

    /// Later arrivals of `id` waiting now, for tests.
    func waitingArrivals(of id: String) -> Int { inFlight.waiting(for: id) }

    /// Marks a reconciliation run as started; false when one is already in progress.
    func beginReconciliation() -> Bool {
        guard !reconciling else { return false }
        reconciling = true
        return true
    }

    /// Marks the reconciliation run as ended.
    func endReconciliation() {
        reconciling = false
    }
}
