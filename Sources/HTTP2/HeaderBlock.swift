internal import CNGHTTP2
import HTTPCore
internal import Glibc

/// Builds the `nghttp2_nv` array for one submit call without touching the heap.
///
/// nghttp2 copies names and values during the submit, so buffers that live for the call are
/// enough: every name and value is laid out in one temporary (stack, when small) byte buffer
/// and the nv entries point inside it. This runs twice per gRPC answer (headers, trailers).
enum HeaderBlock {
    static func withNV<R>(status: Int?, _ headers: HTTPHeaders,
                          _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        if let prepared = PreparedBlocks.shared.block(status: status, headers) {
            return body(prepared.nva, prepared.count)
        }
        var byteCount = status == nil ? 0 : 10
        for field in headers { byteCount += field.name.utf8.count + field.value.utf8.count }
        let count = headers.count + (status == nil ? 0 : 1)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, byteCount)) { storage in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(1, count)) { nva in
                var offset = 0
                var index = 0
                func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
                    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
                    (storage.baseAddress! + offset).update(from: base, count: bytes.count)
                    offset += bytes.count
                }
                func copy(_ text: String) {
                    if text.utf8.withContiguousStorageIfAvailable({ copy($0) }) == nil {
                        for byte in text.utf8 { storage[offset] = byte; offset += 1 }
                    }
                }
                /// Records the field whose name starts at `nameStart` and value at `valueStart`,
                /// the value running to `offset`.
                func entry(_ nameStart: Int, _ valueStart: Int) {
                    nva[index] = nghttp2_nv(
                        name: storage.baseAddress! + nameStart, value: storage.baseAddress! + valueStart,
                        namelen: valueStart - nameStart, valuelen: offset - valueStart,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                    index += 1
                }
                func append(_ name: String, _ value: String) {
                    let nameStart = offset
                    copy(name)
                    let valueStart = offset
                    copy(value)
                    entry(nameStart, valueStart)
                }
                if let status {
                    let clamped = min(max(status, 100), 999)
                    let digits = (UInt8(48 + clamped / 100), UInt8(48 + clamped / 10 % 10), UInt8(48 + clamped % 10))
                    let nameStart = offset
                    copy(":status")
                    let valueStart = offset
                    withUnsafeBytes(of: digits) { copy($0.assumingMemoryBound(to: UInt8.self)) }
                    entry(nameStart, valueStart)
                }
                for field in headers { append(field.name, field.value) }
                return body(UnsafePointer(nva.baseAddress!), index)
            }
        }
    }
}

/// The two header lists every successful gRPC answer sends (`:status: 200` with
/// `content-type: application/grpc`, then the trailer `grpc-status: 0`), laid out once as
/// `nghttp2_nv` arrays in memory that is never freed.
///
/// Building them per answer in ``HeaderBlock/withNV(status:_:_:)`` cost ~1,000 instructions and
/// ~30 retains and releases of a CheckEntitlement call; recognising them costs a count and two
/// byte comparisons. nghttp2 still copies the fields during the submit, as for any other list.
struct PreparedBlocks {
    struct Block {
        let nva: UnsafePointer<nghttp2_nv>
        let count: Int
    }

    let grpcHead: Block
    let grpcOKTrailers: Block

    /// One global for both: each global read is a `swift_once` check.
    nonisolated(unsafe) static let shared = PreparedBlocks()

    private init() {
        grpcHead = Self.permanent([(":status", "200"), ("content-type", "application/grpc")])
        grpcOKTrailers = Self.permanent([("grpc-status", "0")])
    }

    /// The prepared block that is exactly `status` and `headers` (same fields, same order), or nil.
    @inline(__always)
    func block(status: Int?, _ headers: HTTPHeaders) -> Block? {
        guard headers.count == 1 else { return nil }
        var fields = headers.makeIterator()
        guard let field = fields.next() else { return nil }
        switch status {
        case 200?:
            return Self.same(field, "content-type", "application/grpc") ? grpcHead : nil
        case nil:
            return Self.same(field, "grpc-status", "0") ? grpcOKTrailers : nil
        default:
            return nil
        }
    }

    @inline(__always)
    private static func same(_ field: HTTPHeaders.Field, _ name: StaticString, _ value: StaticString) -> Bool {
        bytesEqual(field.name, name) && bytesEqual(field.value, value)
    }

    @inline(__always)
    private static func bytesEqual(_ text: String, _ literal: StaticString) -> Bool {
        var text = text
        return text.utf8.count == literal.utf8CodeUnitCount
            && text.withUTF8 { memcmp($0.baseAddress!, literal.utf8Start, $0.count) == 0 }
    }

    private static func permanent(_ fields: [(String, String)]) -> Block {
        let layout = NVLayout(fields)
        return Block(nva: UnsafePointer(layout.fields), count: layout.count)
    }
}

/// Header fields laid out once as `nghttp2_nv` entries over one buffer holding every name and
/// value, for a list sent many times (``PreparedBlocks``, ``HTTP2RequestHead``). The owner frees
/// it (``deallocate()``) or keeps it for the process's life.
struct NVLayout {
    let fields: UnsafeMutablePointer<nghttp2_nv>
    let count: Int
    private let bytes: UnsafeMutablePointer<UInt8>

    init(_ pairs: [(String, String)]) {
        let byteCount = pairs.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count }
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, byteCount))
        let fields = UnsafeMutablePointer<nghttp2_nv>.allocate(capacity: pairs.count)
        var offset = 0
        func copy(_ text: String) -> (start: UnsafeMutablePointer<UInt8>, count: Int) {
            let begin = offset
            for byte in text.utf8 { bytes[offset] = byte; offset += 1 }
            return (bytes + begin, offset - begin)
        }
        for (index, (name, value)) in pairs.enumerated() {
            let name = copy(name)
            let value = copy(value)
            (fields + index).initialize(to: nghttp2_nv(
                name: name.start, value: value.start, namelen: name.count, valuelen: value.count,
                flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
        }
        (self.fields, self.count, self.bytes) = (fields, pairs.count, bytes)
    }

    func deallocate() {
        fields.deallocate()
        bytes.deallocate()
    }
}
