internal import CNGHTTP2

/// Builds the `nghttp2_nv` array for one submit call.
///
/// nghttp2 copies names and values during the submit, so one buffer that lives for the call
/// is enough: every name and value is laid out in it and the nv entries point inside it.
enum HeaderBlock {
    static func withNV<R>(_ fields: [(String, String)],
                          _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        var storage: [UInt8] = []
        var spans: [(Int, Int, Int, Int)] = []
        spans.reserveCapacity(fields.count)
        for (name, value) in fields {
            let nameStart = storage.count
            storage.append(contentsOf: name.utf8)
            let valueStart = storage.count
            storage.append(contentsOf: value.utf8)
            spans.append((nameStart, valueStart - nameStart, valueStart, storage.count - valueStart))
        }
        if storage.isEmpty { storage.append(0) }
        return storage.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            var nva = spans.map { span in
                nghttp2_nv(name: base + span.0, value: base + span.2, namelen: span.1,
                           valuelen: span.3, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return nva.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }
}
