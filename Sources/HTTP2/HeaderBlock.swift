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
