import HTTPCore
import RPCClient
import RPCCore
import HTTPServer
import TestSupport
import XCTest

/// ``GRPCClient`` against the project's own gRPC server over loopback TCP.
final class GRPCClientTests: XCTestCase {
    var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer()
    }

    override func tearDown() {
        server?.stop()
        server = nil
    }

    func testUnaryRoundTrip() throws {
        let client = GRPCClient(address: server.address)
        let reply: EchoMessage = try client.unary(path: TestServer.echo, request: EchoMessage(text: "héllo"),
                                                  timeout: .seconds(5))
        XCTAssertEqual(reply.text, "héllo")
    }

    func testMetadataReachesTheHandler() throws {
        let client = GRPCClient(address: server.address)
        let reply: EchoMessage = try client.unary(
            path: TestServer.metadata, request: EchoMessage(),
            metadata: ["authorization": "Bearer s3cret", "X-Request-Tag": "tag 1"], timeout: .seconds(5))
        let fields = reply.text.split(separator: "\n").map(String.init)
        XCTAssertTrue(fields.contains("authorization=Bearer s3cret"), "\(fields)")
        XCTAssertTrue(fields.contains("x-request-tag=tag 1"), "names go out lowercased: \(fields)")
        XCTAssertTrue(fields.contains("content-type=application/grpc"), "\(fields)")
        XCTAssertTrue(fields.contains("te=trailers"), "\(fields)")
        XCTAssertTrue(fields.contains { $0.hasPrefix("grpc-timeout=") }, "\(fields)")
    }

    func testErrorStatusComesBackWithItsMessageDecoded() throws {
        let client = GRPCClient(address: server.address)
        let error = try XCTUnwrap(callError(client, path: TestServer.fail))
        XCTAssertEqual(error.kind, .status)
        XCTAssertEqual(error.code, .notFound)
        XCTAssertEqual(error.message, TestServer.failureMessage)
        XCTAssertEqual(error.description, "NOT_FOUND: \(TestServer.failureMessage)")
        // The server answers errors trailers-only: the status travelled in the one header block.
        XCTAssertEqual(error.metadata["grpc-status"], "5")
        XCTAssertEqual(error.metadata["content-type"], "application/grpc")
    }

    func testUnknownMethodIsUnimplemented() throws {
        let client = GRPCClient(address: server.address)
        let error = try XCTUnwrap(callError(client, path: "/test.v1.Echo/Nope"))
        XCTAssertEqual(error.kind, .status)
        XCTAssertEqual(error.code, .unimplemented)
        XCTAssertTrue(error.message.contains("/test.v1.Echo/Nope"), error.message)
    }

    func testDeadlineExceededResetsTheStreamAndKeepsTheConnection() throws {
        let client = GRPCClient(address: server.address)
        let start = ContinuousClock.now
        let error = try XCTUnwrap(callError(client, path: TestServer.slow,
                                            request: EchoMessage(text: "late", sleepMilliseconds: 3000),
                                            timeout: .milliseconds(200)))
        XCTAssertEqual(error.code, .deadlineExceeded)
        XCTAssertLessThan(ContinuousClock.now - start, .milliseconds(1500))
        let reply: EchoMessage = try client.unary(path: TestServer.slow,
                                                  request: EchoMessage(text: "on time", sleepMilliseconds: 10),
                                                  timeout: .seconds(5))
        XCTAssertEqual(reply.text, "on time")
        XCTAssertEqual(client.connectionsOpened, 1)
    }

    func testSeveralCallsShareOneConnection() throws {
        let client = GRPCClient(address: server.address)
        for i in 0..<20 {
            let reply: EchoMessage = try client.unary(path: TestServer.echo, request: EchoMessage(text: "\(i)"),
                                                      timeout: .seconds(5))
            XCTAssertEqual(reply.text, "\(i)")
        }
        _ = callError(client, path: TestServer.fail)
        let last: EchoMessage = try client.unary(path: TestServer.echo, request: EchoMessage(text: "after error"))
        XCTAssertEqual(last.text, "after error")
        XCTAssertEqual(client.connectionsOpened, 1)
        XCTAssertEqual(server.http.openConnections, 1)
    }

    func testMessagesLargerThanOneWindowBothWays() throws {
        let client = GRPCClient(address: server.address)
        let padding = (0..<(3 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let reply: EchoMessage = try client.unary(path: TestServer.echo,
                                                  request: EchoMessage(text: "big", padding: padding),
                                                  timeout: .seconds(10))
        XCTAssertEqual(reply.padding, padding)
    }

    func testResponseOverTheClientLimitIsResourceExhausted() throws {
        let client = GRPCClient(address: server.address,
                                configuration: GRPCClient.Configuration(maxResponseMessageSize: 1024))
        let error = try XCTUnwrap(callError(client, path: TestServer.echo,
                                            request: EchoMessage(text: "x", padding: Array(repeating: 7, count: 4096))))
        XCTAssertEqual(error.code, .resourceExhausted)
        let small: EchoMessage = try client.unary(path: TestServer.echo, request: EchoMessage(text: "small"))
        XCTAssertEqual(small.text, "small")
    }

    func testConnectionRefusedIsATransportError() throws {
        let address = server.address
        server.stop()
        server = nil
        let client = GRPCClient(address: address)
        let error = try XCTUnwrap(callError(client, path: TestServer.echo))
        XCTAssertEqual(error.kind, .transport)
        XCTAssertEqual(error.code, .unavailable)
        XCTAssertTrue(error.message.contains("cannot connect to \(address)"), error.message)
        XCTAssertTrue(error.message.contains("refused"), error.message)
    }

    func testANewConnectionAfterTheServerClosedAnIdleOne() throws {
        server.stop()
        server = try TestServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0,
                                                                   idleTimeout: .milliseconds(200)))
        let client = GRPCClient(address: server.address)
        let first: EchoMessage = try client.unary(path: TestServer.echo, request: EchoMessage(text: "1"))
        XCTAssertEqual(first.text, "1")
        // The server checks idleness about twice a second, then sends GOAWAY and closes: wait for
        // the close (generously: the machine may be loaded) rather than for a fixed time.
        try eventuallyBlocking("the server closed the idle connection") { server.http.openConnections == 0 }
        let second: EchoMessage = try client.unary(path: TestServer.echo, request: EchoMessage(text: "2"),
                                                   timeout: .seconds(5))
        XCTAssertEqual(second.text, "2")
        XCTAssertEqual(client.connectionsOpened, 2)
    }

    func testReservedMetadataIsRefusedBeforeSending() throws {
        let client = GRPCClient(address: server.address)
        let error = try XCTUnwrap(callError(client, path: TestServer.echo, metadata: ["grpc-status": "0"]))
        XCTAssertEqual(error.kind, .invalidCall)
        XCTAssertEqual(client.connectionsOpened, 0)
    }

    private func callError(_ client: GRPCClient, path: String, request: EchoMessage = EchoMessage(text: "x"),
                           metadata: HTTPHeaders = HTTPHeaders(),
                           timeout: Duration = .seconds(5)) -> RPCClientError? {
        do {
            let reply: EchoMessage = try client.unary(
                path: path, request: request, metadata: metadata, timeout: timeout)
            XCTFail("expected an error, got \(reply)")
            return nil
        } catch {
            return error
        }
    }
}
