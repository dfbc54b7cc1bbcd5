import ServiceRuntime

/// Runs a test's blocking libpq calls on a thread of their own instead of Swift's cooperative
/// pool (two threads on this machine): a test blocked in the network must not starve the
/// other suites' tasks. The same task keeps running, so `#expect` still reports to its test.
final class DedicatedThreadExecutor: TaskExecutor {
    static let shared = DedicatedThreadExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        ServiceThread.detach { job.runSynchronously(on: executor) }
    }
}

/// `body` on a dedicated thread, within the calling test's task.
func offPool<R>(_ body: () throws -> R) async throws -> R {
    try await withTaskExecutorPreference(DedicatedThreadExecutor.shared) { try body() }
}

/// `body`'s jobs (every resumption after an await) on dedicated threads: a test that polls
/// for a lease handover keeps polling when the pool is saturated by other suites.
func onDedicatedThreads<R>(_ body: () async throws -> R) async throws -> R {
    try await withTaskExecutorPreference(DedicatedThreadExecutor.shared) { try await body() }
}
