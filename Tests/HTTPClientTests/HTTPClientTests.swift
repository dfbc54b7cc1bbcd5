@testable import HTTPClient
import Synchronization
import Testing
import TestSupport

/// The libcurl client against a scripted loopback peer: what goes on the wire, connection
/// reuse, and which failure kind each way of not answering becomes.
struct HTTPClientTests {
    private func post(_ client: HTTPClient, _ url: String, body: String = "{}",
                      timeout: Duration = .seconds(10)) async throws -> HTTPClientResponse {
        let request = HTTPClientRequest(method: "POST", url: url, headers: [("Content-Type", "application/json")],
                                        body: Array(body.utf8))
        return try await client.send(request, timeout: timeout)
    }

    private func failureKind(_ client: HTTPClient, _ url: String,
                             timeout: Duration = .seconds(10)) async -> HTTPClientError.Kind? {
        do {
            _ = try await post(client, url, timeout: timeout)
            Issue.record("expected a failure")
        } catch let error as HTTPClientError {
            #expect(error.detail.hasPrefix("curl error "), "libcurl's words are kept for the log")
            #expect(error.detail.contains(url), "the log names the request")
            return error.kind
        } catch {
            Issue.record("expected an HTTPClientError, got \(error)")
        }
        return nil
    }

    @Test func sendsTheRequestAsGivenAndReturnsTheWholeAnswer() async throws {
        let peer = try ScriptedPeer { _ in
            .reply(ScriptedPeer.answer(status: 201, headers: ["Retry-After:  1700000000000 "], body: #"{"status":0}"#))
        }
        defer { peer.close() }
        let client = HTTPClient(maxConnectionsPerHost: 2)
        // Over 1 KiB: libcurl would otherwise send "Expect: 100-continue" and wait for it.
        let body = "{\"receipt-data\":\"" + String(repeating: "A", count: 4096) + "\"}"
        let response = try await post(client, peer.url, body: body)
        #expect(response.status == 201)
        #expect(response.body == Array(#"{"status":0}"#.utf8))
        #expect(response.header("retry-after") == "1700000000000")
        #expect(response.header("Content-Length") == "12")
        let request = try #require(peer.requests.first)
        #expect(request.head.hasPrefix("POST /verifyReceipt HTTP/1.1\r\n"))
        #expect(request.head.contains("\r\nContent-Type: application/json"))
        #expect(!request.head.lowercased().contains("expect:"))
        #expect(request.body == Array(body.utf8))
    }

    @Test func getAndOtherMethodsCarryTheirBodiesOrNone() async throws {
        let peer = try ScriptedPeer { _ in .reply(ScriptedPeer.answer(body: "ok")) }
        defer { peer.close() }
        let client = HTTPClient(maxConnectionsPerHost: 1)
        _ = try await client.send(HTTPClientRequest(method: "GET", url: peer.url), timeout: .seconds(10))
        let put = HTTPClientRequest(method: "PUT", url: peer.url, body: [1, 2, 3])
        _ = try await client.send(put, timeout: .seconds(10))
        let requests = peer.requests
        #expect(requests.count == 2)
        #expect(requests.first?.head.hasPrefix("GET /verifyReceipt HTTP/1.1\r\n") == true)
        #expect(requests.first?.body == [])
        #expect(requests.last?.head.hasPrefix("PUT /verifyReceipt HTTP/1.1\r\n") == true)
        #expect(requests.last?.body == [1, 2, 3])
    }

    @Test func aPostWithoutABodyIsStillAPost() async throws {
        let peer = try ScriptedPeer { _ in .reply(ScriptedPeer.answer(body: "ok")) }
        defer { peer.close() }
        let client = HTTPClient(maxConnectionsPerHost: 1)
        _ = try await client.send(HTTPClientRequest(method: "POST", url: peer.url), timeout: .seconds(10))
        let request = try #require(peer.requests.first)
        #expect(request.head.hasPrefix("POST /verifyReceipt HTTP/1.1\r\n"))
        #expect(request.head.lowercased().contains("\r\ncontent-length: 0"))
    }

    @Test func aRedirectIsAnsweredAsItIsNeverFollowed() async throws {
        let peer = try ScriptedPeer { _ in
            .reply(ScriptedPeer.answer(status: 307, headers: ["Location: http://127.0.0.1:1/elsewhere"], body: ""))
        }
        defer { peer.close() }
        let response = try await post(HTTPClient(maxConnectionsPerHost: 1), peer.url)
        #expect(response.status == 307)
        #expect(peer.requests.count == 1)
    }

    @Test func aBlockingCallerGetsTheSameAnswerAndTheSameFailures() throws {
        let peer = try ScriptedPeer { _ in .reply(ScriptedPeer.answer(status: 202, body: "queued")) }
        defer { peer.close() }
        let client = HTTPClient(maxConnectionsPerHost: 1)
        let request = HTTPClientRequest(method: "POST", url: peer.url, headers: [("Authorization", "Bearer t")],
                                        body: Array("{}".utf8))
        let response = try client.sendBlocking(request, timeout: .seconds(10))
        #expect(response.status == 202 && response.body == Array("queued".utf8))
        #expect(peer.requests.first?.head.contains("\r\nAuthorization: Bearer t") == true)

        let closed = try ScriptedPeer { _ in .close }
        let refused = HTTPClientRequest(method: "GET", url: closed.url)
        closed.close()
        let error = #expect(throws: HTTPClientError.self) { try client.sendBlocking(refused, timeout: .seconds(10)) }
        #expect(error?.kind == .connectionRefused)
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        let peer = try ScriptedPeer { _ in .reply(ScriptedPeer.answer(body: "{}")) }
        defer { peer.close() }
        let client = HTTPClient(maxConnectionsPerHost: 4)
        for _ in 0..<20 { #expect(try await post(client, peer.url).status == 200) }
        #expect(peer.connectionsAccepted == 1)
        #expect(Set(peer.requests.map(\.connection)) == [1])
    }

    @Test func aConnectionThePeerClosedIsReplacedNotReported() async throws {
        let peer = try ScriptedPeer { _ in .replyThenClose(ScriptedPeer.answer(body: "{}")) }
        defer { peer.close() }
        let client = HTTPClient(maxConnectionsPerHost: 1)
        for _ in 0..<5 { #expect(try await post(client, peer.url).status == 200) }
        #expect(peer.connectionsAccepted == 5)
    }

    @Test func concurrentRequestsStayWithinThePerHostBound() async throws {
        let peer = try ScriptedPeer { _ in .reply(ScriptedPeer.answer(body: "{}")) }
        defer { peer.close() }
        let client = HTTPClient(maxConnectionsPerHost: 3)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<30 { group.addTask { try await self.post(client, peer.url).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 30))
        #expect(peer.connectionsAccepted <= 3)
    }

    @Test func aClosedPortIsConnectionRefused() async throws {
        let peer = try ScriptedPeer { _ in .close }
        let url = peer.url
        peer.close()
        #expect(await failureKind(HTTPClient(maxConnectionsPerHost: 1), url) == .connectionRefused)
    }

    @Test func aPeerThatNeverAnswersTimesOut() async throws {
        let peer = try ScriptedPeer { _ in .stall }
        defer { peer.close() }
        #expect(await failureKind(HTTPClient(maxConnectionsPerHost: 1), peer.url, timeout: .milliseconds(300))
                == .timedOut)
    }

    @Test func aPeerThatClosesWithoutAnsweringIsAMalformedResponse() async throws {
        let peer = try ScriptedPeer { _ in .close }
        defer { peer.close() }
        #expect(await failureKind(HTTPClient(maxConnectionsPerHost: 1), peer.url) == .malformedResponse)
    }

    @Test func plainHTTPWhereTLSIsExpectedFailsTheHandshake() async throws {
        let peer = try ScriptedPeer(greeting: ScriptedPeer.answer(status: 400, body: "plain text")) { _ in .close }
        defer { peer.close() }
        let url = "https://127.0.0.1:\(peer.port)/verifyReceipt"
        #expect(await failureKind(HTTPClient(maxConnectionsPerHost: 1), url) == .tlsFailed)
    }

    @Test func cancellingTheCallerEndsTheTransferAndTheClientCarriesOn() async throws {
        let stalls = Mutex(true)
        let peer = try ScriptedPeer { _ in
            stalls.withLock { $0 } ? .stall : .reply(ScriptedPeer.answer(body: "{}"))
        }
        defer { peer.close() }
        let client = HTTPClient(maxConnectionsPerHost: 1)
        // The transfer's own timeout must outlast any stall of this test's task: Swift Testing
        // runs every suite at once on one thread per core, and a loaded run starved the task
        // between the request reaching the peer and the cancel for over 60 s (the transfer then
        // timed out first). Only the cancel ends a transfer whose peer stalls this long.
        let call = Task { try await self.post(client, peer.url, timeout: .seconds(900)) }
        try await eventually("the request reached the peer") { !peer.requests.isEmpty }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        stalls.withLock { $0 = false }
        #expect(try await post(client, peer.url).status == 200)
    }

    @Test func aTaskCancelledBeforeSendingSendsNothing() async throws {
        let peer = try ScriptedPeer { _ in .reply(ScriptedPeer.answer(body: "{}")) }
        defer { peer.close() }
        let client = HTTPClient(maxConnectionsPerHost: 1)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await self.post(client, peer.url)
        }
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(peer.requests.isEmpty)
    }

    @Test(arguments: [
        (7, 0, HTTPClientError.Kind.connectionRefused),  // CURLE_COULDNT_CONNECT
        (28, 0, .timedOut),  // CURLE_OPERATION_TIMEDOUT
        (6, 0, .hostNotResolved),  // CURLE_COULDNT_RESOLVE_HOST
        (56, 104, .connectionLost),  // CURLE_RECV_ERROR, ECONNRESET
        (55, 32, .connectionLost),  // CURLE_SEND_ERROR, EPIPE
        (18, 0, .connectionLost),  // CURLE_PARTIAL_FILE: the body was cut short
        (35, 0, .tlsFailed),  // CURLE_SSL_CONNECT_ERROR
        (60, 0, .tlsFailed),  // CURLE_PEER_FAILED_VERIFICATION
        (52, 0, .malformedResponse),  // CURLE_GOT_NOTHING
        (8, 0, .malformedResponse),  // CURLE_WEIRD_SERVER_REPLY
        (1, 0, .other(code: 1)),  // CURLE_UNSUPPORTED_PROTOCOL
        (45, 111, .connectionRefused),  // CURLE_INTERFACE_FAILED with ECONNREFUSED
    ])
    func curlCodesBecomeKinds(code: Int, osErrno: Int, kind: HTTPClientError.Kind) {
        #expect(HTTPClientError.kind(curlCode: code, osErrno: osErrno) == kind)
    }

    /// Every user of the client reports a failure in these words (webhook status, Apple's
    /// UNAVAILABLE message, the tools' "cannot reach").
    @Test(arguments: [
        (HTTPClientError.Kind.connectionRefused, "connection refused"),
        (.timedOut, "timed out"),
        (.hostNotResolved, "host name not resolved"),
        (.connectionLost, "connection lost"),
        (.tlsFailed, "TLS handshake failed"),
        (.malformedResponse, "malformed HTTP response"),
        (.responseTooLarge, "response too large"),
        (.other(code: 1), "network error 1"),
    ])
    func kindsHaveOneSummaryEach(kind: HTTPClientError.Kind, summary: String) {
        #expect(kind.summary == summary)
    }
}

/// Requests queued while a wake-up of the loop thread is still unanswered ride on it; the
/// first one queued after the loop takes the queue sends a new one, so none waits for a poll's
/// timeout.
struct CurlInboxTests {
    @Test func onlyTheFirstCommandSinceTheLoopLastTookTheQueueWakesIt() {
        var inbox = CurlMultiLoop.Inbox()
        let transfers = (0..<3).map { _ in
            CurlTransfer(request: HTTPClientRequest(method: "GET", url: "http://x/"), timeout: .seconds(1),
                         maxResponseBytes: 1)
        }
        let wokeFirst = inbox.queue(.start(transfers[0]))
        let wokeSecond = inbox.queue(.start(transfers[1]))
        #expect(wokeFirst && !wokeSecond)
        let taken = inbox.take()
        #expect(taken.commands.count == 2 && !taken.stopping)
        let empty = inbox.take()
        #expect(empty.commands.isEmpty)
        let wokeAfterTake = inbox.queue(.cancel(transfers[2]))
        #expect(wokeAfterTake, "queued after the take: a new wake-up")
    }
}
