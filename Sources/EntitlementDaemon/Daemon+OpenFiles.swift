import Glibc
import ServiceRuntime

extension Daemon {
    /// Raises the soft open-files limit to what `--max-connections` needs, as far as the hard
    /// limit allows, and logs what it did (see ``OpenFilesLimit``).
    func raiseOpenFilesLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let needed = OpenFilesLimit.needed(maxConnections: serverConfiguration.maxConnections,
                                           appleConcurrency: verifierConfiguration.maxConcurrency)
        let fields = [("soft", String(limit.rlim_cur)), ("hard", String(limit.rlim_max)), ("needed", String(needed)),
                      ("max_connections", String(serverConfiguration.maxConnections))]
        switch OpenFilesLimit.plan(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max), needed: needed) {
        case .keep:
            return
        case let .raise(soft, sufficient):
            var raised = limit
            raised.rlim_cur = rlim_t(soft)
            guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 else {
                logger.warning("cannot raise the open-files limit; connections beyond it will be refused",
                               fields + [("error", String(cString: strerror(errno)))])
                return
            }
            if sufficient {
                logger.info("raised the open-files soft limit", fields + [("now", String(soft))])
            } else {
                logger.warning("raised the open-files soft limit to the hard limit, below what --max-connections "
                               + "needs: raise the hard limit (LimitNOFILE, ulimit -Hn) or lower --max-connections",
                               fields + [("now", String(soft))])
            }
        case .insufficient:
            logger.warning("the open-files limit is below what --max-connections needs and the hard limit allows "
                           + "no more: raise it (LimitNOFILE, ulimit -Hn) or lower --max-connections", fields)
        }
    }
}
