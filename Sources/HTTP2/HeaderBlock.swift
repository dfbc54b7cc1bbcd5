internal import CNGHTTP2
import HTTPCore

/// Builds the `nghttp2_nv` array for one submit call without touching the heap.
///
/// nghttp2 copies names and values during the submit, so buffers that live for the call are
/// enough: every name and value is laid out in one temporary (stack, when small) byte buffer
/// and the nv entries point inside it. This runs twice per gRPC answer (headers, trailers).
enum HeaderBlock {
    static func withNV<R>(status: Int?, _ headers: HTTPHeaders,
                          _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        var byteCount = status == nil ? 0 : 10
        for field in headers { byteCount += field.name.utf8.count + field.value.utf8.count }
        let count = headers.count + (status == nil ? 0 : 1)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, byteCount)) { storage in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(1, count)) { nva in
                var offset = 0
                var index = 0
                func append(_ name: some Sequence<UInt8>, _ value: some Sequence<UInt8>) {
                    let nameStart = offset
                    for byte in name { storage[offset] = byte; offset += 1 }
                    let valueStart = offset
                    for byte in value { storage[offset] = byte; offset += 1 }
                    nva[index] = nghttp2_nv(
                        name: storage.baseAddress! + nameStart, value: storage.baseAddress! + valueStart,
                        namelen: valueStart - nameStart, valuelen: offset - valueStart,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                    index += 1
                }
                if let status {
                    let clamped = min(max(status, 100), 999)
                    let digits = (UInt8(48 + clamped / 100), UInt8(48 + clamped / 10 % 10), UInt8(48 + clamped % 10))
                    withUnsafeBytes(of: digits) { append(":status".utf8, $0) }
                }
                for field in headers { append(field.name.utf8, field.value.utf8) }
                return body(UnsafePointer(nva.baseAddress!), index)
            }
        }
    }
}
