internal import CNGHTTP2
import HTTPCore

/// A request head laid out once as nghttp2 header fields, for a client that sends the same
/// head many times (a load generator: one per request, ~130k/s on one core).
///
/// ``HTTP2ClientSession/submitRequest(method:scheme:authority:path:headers:body:)`` builds an
/// ``HTTPHeaders`` with the pseudo-headers and copies every name and value into a temporary
/// buffer per call; with this head a submit hands nghttp2 the same fields without either step
/// (nghttp2 copies them during the submit, so one buffer serves every request).
public final class HTTP2RequestHead {
    private let layout: NVLayout
    var fields: UnsafePointer<nghttp2_nv> { UnsafePointer(layout.fields) }
    var count: Int { layout.count }

    /// `headers` are regular fields (lowercase names); the pseudo-headers come from the other
    /// arguments, in the order the per-call submit sends them.
    public init(method: String, scheme: String = "http", authority: String, path: String, headers: HTTPHeaders) {
        var pairs = [(":method", method), (":scheme", scheme), (":authority", authority), (":path", path)]
        for field in headers { pairs.append((field.name, field.value)) }
        layout = NVLayout(pairs)
    }

    deinit { layout.deallocate() }
}

@available(*, unavailable)
extension HTTP2RequestHead: Sendable {}
