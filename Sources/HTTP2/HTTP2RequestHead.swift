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
    let fields: UnsafeMutablePointer<nghttp2_nv>
    let count: Int
    private let bytes: UnsafeMutablePointer<UInt8>

    /// `headers` are regular fields (lowercase names); the pseudo-headers come from the other
    /// arguments, in the order the per-call submit sends them.
    public init(method: String, scheme: String = "http", authority: String, path: String, headers: HTTPHeaders) {
        var pairs = [(":method", method), (":scheme", scheme), (":authority", authority), (":path", path)]
        for field in headers { pairs.append((field.name, field.value)) }
        let byteCount = pairs.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count }
        bytes = .allocate(capacity: max(1, byteCount))
        fields = .allocate(capacity: pairs.count)
        count = pairs.count
        var offset = 0
        func copy(_ text: String) -> (UnsafeMutablePointer<UInt8>, Int) {
            let begin = offset
            for byte in text.utf8 { bytes[offset] = byte; offset += 1 }
            return (bytes + begin, offset - begin)
        }
        for (index, (name, value)) in pairs.enumerated() {
            let name = copy(name)
            let value = copy(value)
            (fields + index).initialize(to: nghttp2_nv(
                name: name.0, value: value.0, namelen: name.1, valuelen: value.1,
                flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
        }
    }

    deinit {
        fields.deallocate()
        bytes.deallocate()
    }
}

@available(*, unavailable)
extension HTTP2RequestHead: Sendable {}
