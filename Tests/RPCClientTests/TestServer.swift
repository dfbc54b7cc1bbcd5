import Foundation
import HTTPCore
import RPCClient
import RPCCore
import HTTPServer

/// The project's own server (``HTTPServer`` + ``GRPCHandler``) on a free loopback port, with
/// a small test service: a real peer rather than a scripted one.
final class TestServer: Sendable {
    static let echo = "/test.v1.Echo/Echo"
    static let fail = "/test.v1.Echo/Fail"
    static let slow = "/test.v1.Echo/Slow"
    static let metadata = "/test.v1.Echo/Metadata"
    /// What ``fail`` answers: non-ASCII, a '%' and a newline, so it must be percent-encoded.
    static let failureMessage = "café au lait 100% gone\nsecond line ✓"

    let http: HTTPServer
    let address: ServerAddress

    init(configuration: ServerConfiguration = ServerConfiguration(host: "127.0.0.1", port: 0)) throws {
        var router = RPCRouter()
        router.registerInline(TestServer.echo) { (request: EchoMessage, _: RPCContext) in request }
        router.registerInline(TestServer.fail) { (_: EchoMessage, _: RPCContext) -> EchoMessage in
            throw RPCError(.notFound, TestServer.failureMessage)
        }
        router.register(TestServer.slow) { (request: EchoMessage, _: RPCContext) async throws -> EchoMessage in
            try await Task.sleep(for: .milliseconds(Int(request.sleepMilliseconds)))
            return request
        }
        router.registerInline(TestServer.metadata) { (_: EchoMessage, context: RPCContext) in
            let text = context.metadata.map { "\($0.name)=\($0.value)" }.joined(separator: "\n")
            return EchoMessage(text: text)
        }
        var configuration = configuration
        configuration.port = 0
        http = try HTTPServer(configuration: configuration, service: GRPCHandler(router: router))
        http.start()
        address = ServerAddress(parsing: http.boundAddress)!
    }

    func stop() { http.shutdownBlocking(gracePeriod: .milliseconds(200)) }
}
