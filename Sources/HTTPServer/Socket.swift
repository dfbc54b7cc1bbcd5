import CLinux
import Glibc

/// A socket-level failure: what failed and the errno text, for the operator.
public struct TransportError: Error, CustomStringConvertible {
    public let description: String

    init(_ what: String, errno code: Int32 = errno) {
        description = "\(what): \(String(cString: strerror(code)))"
    }

    init(message: String) { description = message }
}

/// Thin helpers over the BSD socket calls the transport makes.
enum Socket {
    /// Opens a non-blocking listening socket; returns it and the address actually bound
    /// (port 0 picks a free port, which tests rely on).
    static func listen(host: String, port: Int, backlog: Int32 = 4096) throws -> (fd: Int32, bound: String) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let info = result else {
            throw TransportError(
                message: "cannot resolve listen address \(host):\(port): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        let fd = socket(
            info.pointee.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TransportError("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let error = TransportError("cannot listen on \(host):\(port)")
            close(fd)
            throw error
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = TransportError("listen on \(host):\(port)")
            close(fd)
            throw error
        }
        return (fd, boundAddress(fd))
    }

    /// Stops a listener: Linux then refuses new connections instead of queueing connections
    /// nobody will accept, and resets those already queued (accept them first).
    static func stopListening(_ fd: Int32) {
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    static func boundAddress(_ fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                guard getsockname(fd, address, &length) == 0 else { return "?" }
                var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
                guard getnameinfo(address, length, &host, socklen_t(host.count), &service,
                                  socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV) == 0 else { return "?" }
                let hostText = text(host)
                let portText = text(service)
                return hostText.contains(":") ? "[\(hostText)]:\(portText)" : "\(hostText):\(portText)"
            }
        }
    }

    /// Accepts one connection, non-blocking and with Nagle off (gRPC answers are small and
    /// latency-bound). Nil when there is nothing to accept.
    static func accept(_ listenFD: Int32) -> Int32? {
        let fd = accept4(listenFD, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        guard fd >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    private static func text(_ cString: [CChar]) -> String {
        String(decoding: cString.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
