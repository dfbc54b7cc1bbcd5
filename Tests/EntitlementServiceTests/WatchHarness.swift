import EntitlementAPI
import EntitlementPorts
@testable import EntitlementService
import Entitlements
import HTTPCore
import ProtobufWire
import RPCCore
import Synchronization

/// A change log in memory with the contract's shape: appends get the next sequence and wake
/// the observers, as the store does after a commit. `prune(through:)` moves the retention edge.
final class ScriptedChangeLog: EntitlementChangeLog {
    struct State {
        var changes: [EntitlementChange] = []
        var latest: Int64 = 0
        var oldestRetained: Int64 = 1
        var observers: [@Sendable (Int64) -> Void] = []
        /// `changes(after:)` calls so far, by whom: the fan-out's own reads have no user filter.
        var reads = 0
    }
    let state = Mutex(State())

    func changes(after sequence: Int64, userID: String?, limit: Int) throws -> [EntitlementChange] {
        state.withLock { state in
            state.reads += 1
            return Array(state.changes.lazy.filter { $0.sequence > sequence && (userID == nil || $0.userID == userID) }
                .prefix(limit))
        }
    }

    func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64) {
        state.withLock { ($0.oldestRetained, $0.latest) }
    }

    func onChangesCommitted(_ observer: @escaping @Sendable (Int64) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Commits one change for `user`; returns its sequence.
    @discardableResult
    func append(user: String, _ state: EntitlementState, previous: EntitlementState? = nil) -> Int64 {
        let (sequence, observers) = self.state.withLock { log -> (Int64, [@Sendable (Int64) -> Void]) in
            log.latest += 1
            let entitlement = Entitlement(
                productID: "pro.monthly", originalTransactionID: "1000", state: state, purchasedAtMs: 1,
                expiresAtMs: 2, productType: .autoRenewable, environment: .production,
                latestTransactionID: "1000", entitlementID: "pro")
            log.changes.append(EntitlementChange(
                sequence: log.latest, changeID: "ch-\(log.latest)", userID: user, entitlement: entitlement,
                previousState: previous, occurredAtMs: 1_000 + log.latest, causeEventID: "ev-\(log.latest)"))
            return (log.latest, log.observers)
        }
        for observer in observers { observer(sequence) }
        return sequence
    }

    func prune(through sequence: Int64) {
        state.withLock { state in
            state.changes.removeAll { $0.sequence <= sequence }
            state.oldestRetained = sequence + 1
        }
    }
}

/// The client end of one streamed call, recorded: the transport's writer and body stream in
/// one. A reading client takes every byte at once; a non-reading one leaves them buffered.
final class StreamRecorder: HTTPResponseWriter, HTTPResponseStream {
    struct State {
        var reading: Bool
        var started = false
        var body: [UInt8] = []
        var buffered = 0
        var trailers: HTTPHeaders?
        var whole: HTTPResponse?
        var onCancel: (@Sendable () -> Void)?
        var waiter: (@Sendable () -> Void)?
        var ended: Bool { trailers != nil || whole != nil }
    }
    let state: Mutex<State>

    init(reading: Bool = true) { state = Mutex(State(reading: reading)) }

    func respond(_ response: HTTPResponse) { state.withLock { if !$0.ended { $0.whole = response } } }
    func onCancel(_ handler: @escaping @Sendable () -> Void) { state.withLock { $0.onCancel = handler } }
    func startStream(status: Int, headers: HTTPHeaders) -> (any HTTPResponseStream)? {
        state.withLock { state in
            if state.ended || state.started { return nil }
            state.started = true
            return self
        }
    }

    func write(_ bytes: [UInt8], limit: Int) -> HTTPStreamWrite {
        state.withLock { state in
            if state.ended { return .closed }
            if !state.reading {
                if state.buffered + bytes.count > limit { return .overLimit(buffered: state.buffered) }
                state.buffered += bytes.count
            }
            state.body += bytes
            return .queued(buffered: state.buffered)
        }
    }
    var bufferedBytes: Int { state.withLock { $0.buffered } }
    func whenBuffered(atMost threshold: Int, _ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if state.ended || state.buffered <= threshold { return true }
            state.waiter = handler
            return false
        }
        if now { handler() }
    }
    func finish(trailers: HTTPHeaders) { state.withLock { if !$0.ended { $0.trailers = trailers } } }
    func abort(trailers: HTTPHeaders) { finish(trailers: trailers) }

    /// The client goes away (RST_STREAM).
    func cancel() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            state.trailers = state.trailers ?? ["grpc-status": "cancelled by the client"]
            return state.onCancel
        }
        handler?()
    }

    /// The client starts reading: everything buffered is taken.
    func startReading() {
        let waiter = state.withLock { state -> (@Sendable () -> Void)? in
            state.reading = true
            state.buffered = 0
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?()
    }

    var messages: [EntitlementV1.EntitlementChange] {
        var bytes = state.withLock { $0.body }[...]
        var found: [EntitlementV1.EntitlementChange] = []
        while bytes.count >= 5 {
            let length = bytes.dropFirst().prefix(4).reduce(0) { $0 << 8 | Int($1) }
            found.append(try! EntitlementV1.EntitlementChange(protobufBytes: bytes.dropFirst(5).prefix(length)))
            bytes = bytes.dropFirst(5 + length)
        }
        return found
    }
    var sequences: [Int64] { messages.map { ChangeCursor.decode($0.cursor)! } }

    /// The status the call ended with (trailers, or a trailers-only answer), nil while open.
    var status: (code: String, message: String)? {
        state.withLock { state in
            guard let block = state.trailers ?? state.whole?.headers, let code = block["grpc-status"] else {
                return nil
            }
            return (code, block["grpc-message"].map(PercentEncoding.decode) ?? "")
        }
    }
}

/// A gRPC handler serving WatchEntitlementChanges from a fan-out over `log`.
struct WatchHarness {
    let log = ScriptedChangeLog()
    let fanOut: ChangeFanOut
    let grpc: GRPCHandler

    init(pageSize: Int = 512, maxBufferedStreamBytes: Int = 256 * 1024) throws {
        fanOut = ChangeFanOut(log: log, pageSize: pageSize)
        var router = RPCRouter()
        fanOut.register(into: &router)
        grpc = GRPCHandler(router: router, configuration: .init(maxBufferedStreamBytes: maxBufferedStreamBytes))
    }

    @discardableResult
    func watch(after cursor: String = "", user: String = "", reading: Bool = true,
               timeout: String? = nil) -> StreamRecorder {
        let recorder = StreamRecorder(reading: reading)
        var body = EntitlementV1.WatchEntitlementChangesRequest(afterCursor: cursor, userID: user).protobufBytes()
        let length = body.count
        body = [0, UInt8(length >> 24 & 0xff), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff),
                UInt8(length & 0xff)] + body
        var headers: HTTPHeaders = ["content-type": "application/grpc"]
        if let timeout { headers.add(name: "grpc-timeout", value: timeout) }
        grpc.handle(HTTPRequest(version: .http2, method: "POST",
                                path: "/entitlement.v1.EntitlementService/WatchEntitlementChanges",
                                headers: headers, body: body), writer: recorder)
        return recorder
    }
}
