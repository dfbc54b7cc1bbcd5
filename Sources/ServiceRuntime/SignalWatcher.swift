import Dispatch
import Glibc

/// Turns POSIX signals into callbacks on a dispatch queue.
///
/// The default disposition is switched off first, so SIGTERM starts a graceful shutdown
/// instead of killing the process, and SIGHUP reloads instead of hanging up.
public final class SignalWatcher: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "signals")

    public init() {}

    public func on(_ signalNumber: Int32, _ handler: @escaping @Sendable () -> Void) {
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
        source.setEventHandler(handler: handler)
        source.resume()
        sources.append(source)
    }
}
