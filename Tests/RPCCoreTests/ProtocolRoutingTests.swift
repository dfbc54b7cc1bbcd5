import HTTPCore
import RPCCore
import Synchronization
import XCTest

/// One port, two protocols: the composition root's ContentTypeRouter sends gRPC requests (by
/// content type, as the gRPC spec defines them) to the gRPC handler and everything else to the
/// HTTP routes; the gRPC handler itself refuses what is not gRPC.
final class ProtocolRoutingTests: XCTestCase {
    final class Sides: Sendable {
        let seen = Mutex<[String]>([])
    }

    struct Side: HTTPService {
        let name: String
        let sides: Sides
        func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
            sides.seen.withLock { $0.append(name) }
        }
    }

    final class RecordingWriter: HTTPResponseWriter {
        let responses = Mutex<[HTTPResponse]>([])
        func respond(_ response: HTTPResponse) { responses.withLock { $0.append(response) } }
        func onCancel(_ handler: @escaping @Sendable () -> Void) {}
        var last: HTTPResponse? { responses.withLock { $0.last } }
    }

    func request(contentType: String?) -> HTTPRequest {
        var headers = HTTPHeaders()
        if let contentType { headers.add(name: "content-type", value: contentType) }
        return HTTPRequest(version: .http2, method: "POST", path: "/x", headers: headers)
    }

    func testRequestsAreRoutedByContentType() {
        let table: [(String?, String)] = [
            ("application/grpc", "grpc"), ("application/grpc+proto", "grpc"), ("application/grpc+json", "grpc"),
            ("application/json", "http"), ("text/plain", "http"), (nil, "http"), ("", "http"),
            ("application/gr", "http"),
        ]
        for (contentType, expected) in table {
            let sides = Sides()
            let router = ContentTypeRouter(contentTypePrefix: GRPCHandler.contentType,
                                           to: Side(name: "grpc", sides: sides),
                                           otherwise: Side(name: "http", sides: sides))
            router.handle(request(contentType: contentType), writer: RecordingWriter())
            XCTAssertEqual(sides.seen.withLock { $0 }, [expected], "content-type \(contentType ?? "(none)")")
        }
    }

    func testTheGRPCHandlerRefusesWhatIsNotGRPC() {
        let handler = GRPCHandler(router: RPCRouter())
        let writer = RecordingWriter()
        handler.handle(request(contentType: "application/json"), writer: writer)
        XCTAssertEqual(writer.last?.status, 415, "the gRPC spec's answer to a non-gRPC content type")
    }
}
