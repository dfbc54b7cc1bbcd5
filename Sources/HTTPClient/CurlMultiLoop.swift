internal import CCurl
import ServiceRuntime
import Synchronization

/// One libcurl multi handle driven by its own thread: every request of one ``HTTPClient``
/// runs here, over the multi handle's pool of kept-alive connections.
///
/// Why a thread and not the cooperative pool: curl_multi_poll blocks. Tasks hand requests over
/// through `commands` and wake the thread with curl_multi_wakeup (libcurl's one thread-safe
/// multi call); the thread resumes each awaiting task when its transfer ends. One wake-up and
/// one resume per request, where URLSession added several queue hops.
///
/// Owning thread: everything but `commands` and `multi`'s wake-up is touched only by the loop
/// thread, hence `@unchecked Sendable`.
final class CurlMultiLoop: @unchecked Sendable {
    enum Command {
        case start(CurlTransfer)
        case cancel(CurlTransfer)
    }

    /// What tasks hand the loop thread, under one lock.
    struct Inbox {
        var commands: [Command] = []
        var stopping = false
        /// A wake-up was sent that the loop has not yet answered by taking the commands: a
        /// command queued meanwhile rides on it instead of sending another (each is a write to
        /// libcurl's socket pair and a read back; under load one per request was ~1 % of a
        /// SubmitReceipt call's CPU).
        var wakePending = false

        /// Queues `command`; true when the caller must wake the loop.
        mutating func queue(_ command: Command) -> Bool {
            commands.append(command)
            defer { wakePending = true }
            return !wakePending
        }

        /// Takes the queued commands for the loop, which answers every wake-up sent so far: a
        /// command queued after this sends its own, which ends the loop's next poll early.
        mutating func take() -> (commands: [Command], stopping: Bool) {
            defer { commands.removeAll(keepingCapacity: true) }
            wakePending = false
            return (commands, stopping)
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    // Loop thread only:
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private let maxIdleHandles: Int

    /// `maxConnectionsPerHost` bounds concurrent connections to one host (more requests queue
    /// inside libcurl); the idle-connection cache keeps three hosts' worth alive.
    init(maxConnectionsPerHost: Int) {
        _ = curlGlobalInit
        guard let multi = curl_multi_init() else { preconditionFailure("curl_multi_init failed: out of memory") }
        self.multi = multi
        let perHost = max(1, maxConnectionsPerHost)
        maxIdleHandles = perHost
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, perHost)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, perHost * 3)
    }

    func start() {
        ServiceThread.detach { [self] in run() }
    }

    /// Queues `command` and wakes the loop thread.
    func submit(_ command: Command) {
        if inbox.withLock({ $0.queue(command) }) { curl_multi_wakeup(multi) }
    }

    /// Ends the thread: transfers still running fail with CancellationError.
    func stop() {
        inbox.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
    }

    private func run() {
        while true {
            let (commands, stopping) = inbox.withLock { $0.take() }
            for command in commands {
                switch command {
                case .start(let transfer): begin(transfer)
                case .cancel(let transfer): cancel(transfer)
                }
            }
            if stopping { return shutDown() }
            var active: Int32 = 0
            _ = curl_multi_perform(multi, &active)
            collectFinished()
            var ready: Int32 = 0
            // Returns early on socket activity, a wake-up, or libcurl's own next timeout.
            _ = curl_multi_poll(multi, nil, 0, 1000, &ready)
        }
    }

    private func begin(_ transfer: CurlTransfer) {
        guard !transfer.cancelledBeforeStart else {
            return finish(transfer, with: .failure(CancellationError()))
        }
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            let error = HTTPClientError(kind: .other(code: 27), detail: "curl_easy_init failed: out of memory")
            return finish(transfer, with: .failure(error))
        }
        do {
            try transfer.configure(easy)
        } catch {
            return finish(transfer, with: .failure(error))
        }
        let code = curl_multi_add_handle(multi, easy)
        guard code == CURLM_OK else {
            let detail = "curl_multi_add_handle: \(String(cString: curl_multi_strerror(code)))"
            return finish(transfer, with: .failure(HTTPClientError(kind: .other(code: -1), detail: detail)))
        }
        running[easy] = transfer
    }

    private func cancel(_ transfer: CurlTransfer) {
        guard let easy = transfer.handle, running[easy] === transfer else {
            // Not started yet (or already finished, where this is a no-op).
            transfer.cancelledBeforeStart = true
            return
        }
        _ = curl_multi_remove_handle(multi, easy)
        running[easy] = nil
        finish(transfer, with: .failure(CancellationError()))
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = running.removeValue(forKey: easy) else { continue }
            let code = ccurl_message_result(message)
            _ = curl_multi_remove_handle(multi, easy)
            finish(transfer, with: transfer.outcome(code: code).mapError { $0 })
        }
    }

    /// Resumes the awaiting task and recycles the easy handle (its settings reset, its
    /// connection, if any, stays in the multi handle's cache).
    private func finish(_ transfer: CurlTransfer, with result: Result<HTTPClientResponse, any Error>) {
        if let easy = transfer.releaseHandle() {
            curl_easy_reset(easy)
            if idleHandles.count < maxIdleHandles { idleHandles.append(easy) } else { curl_easy_cleanup(easy) }
        }
        transfer.completion?(result)
        transfer.completion = nil
    }

    private func shutDown() {
        for (easy, transfer) in running {
            _ = curl_multi_remove_handle(multi, easy)
            finish(transfer, with: .failure(CancellationError()))
        }
        running = [:]
        for command in inbox.withLock({ $0.commands }) {
            if case .start(let transfer) = command { finish(transfer, with: .failure(CancellationError())) }
        }
        idleHandles.forEach { curl_easy_cleanup($0) }
        idleHandles = []
        curl_multi_cleanup(multi)
    }
}

/// curl_global_init once per process, before the first handle (Swift runs a global's
/// initializer once, thread-safely). libcurl counts calls, so another user in the process is safe.
private let curlGlobalInit: Void = {
    let code = ccurl_global_init()
    precondition(code == CURLE_OK, "curl_global_init failed: \(String(cString: curl_easy_strerror(code)))")
}()
