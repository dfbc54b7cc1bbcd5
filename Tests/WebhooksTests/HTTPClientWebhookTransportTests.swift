import Foundation
import HTTPCore
import HTTPServer
import ServiceRuntime
import Testing
import Webhooks

/// The production transport over libcurl against the project's own HTTP server on loopback:
/// what a POST carries, which statuses deliver, and the words each way of not answering
/// becomes (the dispatcher retries them all; the status report and the log show the words).
struct HTTPClientWebhookTransportTests {
    /// A receiver: `/status/N` answers N, `/elsewhere` records that a redirect was followed,
    /// `/silent` never answers.
    final class Receiver: Sendable {
        let server: HTTPServer
        private let received = Locked<[HTTPRequest]>([])

        init() throws {
            let received = self.received
            var routes = HTTPRouter()
            for status in [200, 202, 204, 307, 400, 410, 500, 503] {
                routes.add("POST", "/status/\(status)") { request, writer in
                    received.withLock { $0.append(request) }
                    var headers = HTTPHeaders()
                    if status == 307 { headers.add(name: "Location", value: "/elsewhere") }
                    writer.respond(HTTPResponse(status: status, headers: headers, body: Array("ignored".utf8)))
                }
            }
            routes.add("POST", "/elsewhere") { request, writer in
                received.withLock { $0.append(request) }
                writer.respond(HTTPResponse(status: 200))
            }
            routes.add("POST", "/silent") { _, _ in }
            server = try HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0),
                                    service: routes)
            server.start()
        }

        var requests: [HTTPRequest] { received.withLock { $0 } }

        func url(_ path: String, scheme: String = "http") -> URL {
            URL(string: "\(scheme)://\(server.boundAddress)\(path)")!
        }

        func stop() { server.shutdownBlocking(gracePeriod: .milliseconds(100)) }
    }

    private let headers = [
        ("Content-Type", "application/json"), ("Webhook-Id", "change-1"),
        ("Webhook-Signature", "t=1700000000,v1=abc"), ("User-Agent", "entitlementd-webhooks/1"),
    ]

    @Test(arguments: [(200, true), (202, true), (204, true), (400, false), (410, false), (500, false),
                      (503, false)])
    func theStatusIsTheAnswerAndOnly2xxDelivers(status: Int, delivers: Bool) async throws {
        let receiver = try Receiver()
        defer { receiver.stop() }
        let transport = HTTPClientWebhookTransport(maxConnectionsPerHost: 2)
        let result = await transport.post(receiver.url("/status/\(status)"), headers: headers,
                                          body: Array(#"{"change":1}"#.utf8), timeout: .seconds(10))
        #expect(result == .status(status))
        #expect(result.isSuccess == delivers)
        #expect(result.failureDescription == "HTTP \(status)")
    }

    @Test func thePostCarriesTheSignatureHeadersAndTheBodyAsGiven() async throws {
        let receiver = try Receiver()
        defer { receiver.stop() }
        let transport = HTTPClientWebhookTransport(maxConnectionsPerHost: 2)
        let body = #"{"change":"é","padding":""# + String(repeating: "x", count: 2048) + #""}"#
        _ = await transport.post(receiver.url("/status/204"), headers: headers, body: Array(body.utf8),
                                 timeout: .seconds(10))
        let request = try #require(receiver.requests.first)
        #expect(request.method == "POST")
        #expect(request.body == Array(body.utf8))
        for (name, value) in headers { #expect(request.headers[name.lowercased()] == value, "\(name)") }
        #expect(request.headers["expect"] == nil, "no 100-continue round trip before larger bodies")
    }

    @Test func aRedirectIsAFailedAttemptNeverFollowed() async throws {
        let receiver = try Receiver()
        defer { receiver.stop() }
        let transport = HTTPClientWebhookTransport(maxConnectionsPerHost: 2)
        let result = await transport.post(receiver.url("/status/307"), headers: headers, body: [],
                                          timeout: .seconds(10))
        #expect(result == .status(307) && !result.isSuccess)
        #expect(receiver.requests.map(\.path) == ["/status/307"])
    }

    @Test func anEndpointThatNeverAnswersTimesOut() async throws {
        let receiver = try Receiver()
        defer { receiver.stop() }
        let transport = HTTPClientWebhookTransport(maxConnectionsPerHost: 2)
        // The receiver never answers: only the timeout can end the call, so its ending at all
        // with "timed out" shows the 300 ms reached libcurl. No bound on the elapsed time: a
        // loaded run starved this task for over 60 s after the transfer had ended.
        let result = await transport.post(receiver.url("/silent"), headers: headers, body: [],
                                          timeout: .milliseconds(300))
        #expect(result == .failed("timed out"))
    }

    @Test func aClosedPortIsConnectionRefused() async throws {
        let receiver = try Receiver()
        let url = receiver.url("/status/200")
        receiver.stop()
        let transport = HTTPClientWebhookTransport(maxConnectionsPerHost: 2)
        let result = await transport.post(url, headers: headers, body: [], timeout: .seconds(10))
        #expect(result == .failed("connection refused"))
        #expect(result.failureDescription == "connection refused")
    }

    @Test func plainHTTPWhereTLSIsExpectedFailsTheHandshake() async throws {
        let receiver = try Receiver()
        defer { receiver.stop() }
        let transport = HTTPClientWebhookTransport(maxConnectionsPerHost: 2)
        let result = await transport.post(receiver.url("/status/200", scheme: "https"), headers: headers,
                                          body: [], timeout: .seconds(10))
        #expect(result == .failed("TLS handshake failed"))
    }

    @Test func aStoppingDispatcherCancelsThePostInFlight() async throws {
        let receiver = try Receiver()
        defer { receiver.stop() }
        let transport = HTTPClientWebhookTransport(maxConnectionsPerHost: 2)
        let url = receiver.url("/silent")
        let post = Task { [headers] in await transport.post(url, headers: headers, body: [], timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(100))
        post.cancel()
        #expect(await post.value == .failed("cancelled"))
    }
}
