import Glibc
import HTTP2
import HTTPCore
@testable import HTTPServer
import Testing

/// Each mode's timeout rules (``Connection/timeoutCheck(now:)``): what is due at an instant and
/// when the loop looks again. The check acts on `due` and the wheel files the connection at
/// `next`, so this one table is what both follow.
@Suite(.serialized)
struct ConnectionTimeoutRulesTests {
    struct Ignoring: HTTPService {
        func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {}
    }

    typealias Actions = Connection.TimeoutCheck.Actions

    /// A connection of a server that is never started, on one end of a socket pair: nothing runs
    /// but the rules asked here.
    static func withConnection(_ body: (Connection, ContinuousClock.Instant) throws -> Void) throws {
        let configuration = ServerConfiguration(
            port: 0, idleTimeout: .seconds(300), headerReadTimeout: .seconds(10))
        let server = try HTTPServer(configuration: configuration, service: Ignoring())
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
            close(server.core.listenFD)
        }
        let connection = Connection(fd: fds[0], loop: server.loops[0])
        connection.lastActivity = connection.openedAt
        try body(connection, connection.openedAt)
    }

    static func seconds(_ t: ContinuousClock.Instant, _ s: Double) -> ContinuousClock.Instant {
        t + .milliseconds(Int(s * 1000))
    }

    @Test func aConnectionThatHasNotToldItsProtocolHasTheHeaderReadTimeoutFromAccept() throws {
        try Self.withConnection { connection, t in
            let before = connection.timeoutCheck(now: Self.seconds(t, 5))
            #expect(before.due == [])
            #expect(before.next == Self.seconds(t, 10))
            let at = connection.timeoutCheck(now: Self.seconds(t, 10))  // not yet: strictly after
            #expect(at.due == [])
            let after = connection.timeoutCheck(now: Self.seconds(t, 10.001))
            #expect(after.due == .close)
            #expect(after.next == Self.seconds(t, 10))

            var detection = ProtocolDetection(maxRequestHeadBytes: 8192)
            _ = Array("GET / HTTP/1.1\r\nHost".utf8).withUnsafeBytes { detection.append($0) }
            connection.mode = .detecting(detection)
            #expect(connection.timeoutCheck(now: Self.seconds(t, 11)).due == .answerRequestTimeout)
        }
    }

    @Test func anHTTP1ConnectionIsIdleOnlyBetweenRequestsAndARequestHeadHasItsOwnDeadline() throws {
        try Self.withConnection { connection, t in
            let exchange = HTTP1Exchange(limits: connection.configuration.http1)
            connection.mode = .http1(exchange)
            let idle = connection.timeoutCheck(now: Self.seconds(t, 1))
            #expect(idle.due == [])
            #expect(idle.next == Self.seconds(t, 300))
            #expect(connection.timeoutCheck(now: Self.seconds(t, 301)).due == .close)

            exchange.inFlight = true  // watched at every tick, never idle
            let inFlight = connection.timeoutCheck(now: Self.seconds(t, 301))
            #expect(inFlight.due == [])
            #expect(inFlight.next == Self.seconds(t, 301))

            exchange.inFlight = false
            exchange.requestStartedAt = Self.seconds(t, 100)
            let started = connection.timeoutCheck(now: Self.seconds(t, 105))
            #expect(started.due == [])
            #expect(started.next == Self.seconds(t, 110))
            let late = connection.timeoutCheck(now: Self.seconds(t, 111))
            #expect(late.due == .answerRequestTimeout)
            #expect(late.next == Self.seconds(t, 110))
        }
    }

    @Test func anHTTP2ConnectionGetsGoAwayWhenIdleAndIsWatchedAtEveryTickWhileBusyOrDraining() throws {
        try Self.withConnection { connection, t in
            connection.mode = .http2(try HTTP2ServerSession(limits: connection.configuration.http2))
            let idle = connection.timeoutCheck(now: Self.seconds(t, 1))
            #expect(idle.due == [])
            #expect(idle.next == Self.seconds(t, 300))
            let expired = connection.timeoutCheck(now: Self.seconds(t, 301))
            #expect(expired.due == .sendIdleGoAway)
            #expect(expired.next == Self.seconds(t, 300))

            connection.lastActivity = Self.seconds(t, 250)  // activity pushes the deadline later
            #expect(connection.timeoutCheck(now: Self.seconds(t, 301)).next == Self.seconds(t, 550))
            connection.lastActivity = t

            connection.pending[1] = StreamResponseWriter(loop: connection.loop, connection: connection, streamID: 1)
            let busy = connection.timeoutCheck(now: Self.seconds(t, 301))
            #expect(busy.due == [])
            #expect(busy.next == Self.seconds(t, 301))
            connection.pending.removeAll()

            connection.closingGracefully = true
            let draining = connection.timeoutCheck(now: Self.seconds(t, 1))
            #expect(draining.due == .checkDrain)
            #expect(draining.next == Self.seconds(t, 1))
            let drainingIdle = connection.timeoutCheck(now: Self.seconds(t, 301))
            #expect(drainingIdle.due == [.checkDrain, .sendIdleGoAway])
            #expect(drainingIdle.next == Self.seconds(t, 301))
        }
    }

    @Test func aLingeringCloseEndsAtItsDeadlineWhateverTheModeWas() throws {
        try Self.withConnection { connection, t in
            connection.mode = .http1(HTTP1Exchange(limits: connection.configuration.http1))
            connection.lingeringUntil = Self.seconds(t, 2)
            let before = connection.timeoutCheck(now: Self.seconds(t, 1))
            #expect(before.due == [])
            #expect(before.next == Self.seconds(t, 2))
            #expect(connection.timeoutCheck(now: Self.seconds(t, 2)).due == .close)
            // Not the idle rule: an idle timeout long past does not close it before its deadline.
            connection.lastActivity = Self.seconds(t, -1000)
            #expect(connection.timeoutCheck(now: Self.seconds(t, 1)).due == [])
        }
    }
}
